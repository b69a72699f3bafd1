package pipeline_test

import (
	"context"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
)

// A result's attachments (an image read) reach the caller when no
// tool.execute.after hook changed the result, and are dropped when one
// did: the hook saw only the text that describes them.
//
// covers H17
func TestAfterHookThatChangesAResultDropsItsAttachments(t *testing.T) {
	paths := writePlugins(t, map[string]string{
		"a.js": `export default {id: "redactor", server: () => ({"tool.execute.after": (i) =>
			i.toolID === "pic_secret" ? {...i, result: {...i.result, output: "[filtered]"}} : undefined})}`,
	})
	a, _ := apptest.Boot(t, apptest.Project{Plugins: paths})
	for _, id := range []string{"pic", "pic_secret"} {
		a.Tools.Add(&tool.Def{ID: id, Source: "test", Parameters: []byte(`{"type": "object"}`),
			Execute: func(context.Context, tool.Call, map[string]any) (tool.Result, error) {
				return tool.Result{Output: "[image: image/png, 3 bytes]",
					Attachments: []tool.Attachment{{MIMEType: "image/png", Data: []byte{1, 2, 3}}}}, nil
			}})
	}
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{CallID: "c1"}, "pic", map[string]any{})
	if err != nil || len(res.Attachments) != 1 || res.Attachments[0].Kind() != "image" {
		t.Errorf("unchanged result: %v, attachments %+v", err, res.Attachments)
	}
	res, _, err = a.Runner.CallTool(context.Background(), tool.Call{CallID: "c2"}, "pic_secret", map[string]any{})
	if err != nil || res.Output != "[filtered]" || len(res.Attachments) != 0 {
		t.Errorf("changed result: %v, %q, attachments %+v", err, res.Output, res.Attachments)
	}
}
