package provider

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"

	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"

	"github.com/podcode/podcode/internal/config"
)

// The embedded catalog is catwalk's (charm.land/catwalk, the catalog
// charmbracelet/crush ships): each provider's models with their context
// and output limits, reasoning support and prices, compiled into the
// binary and never fetched at run time. It is read once, the first time a
// model is looked up that the config does not define.
//
// What Podcode takes of it, per provider:
//
//   - the API, from catwalk's type: anthropic → APIAnthropic, openai (at
//     OpenAI's own endpoint) → APIResponses, google → APIGemini,
//     google-vertex → APIVertex (its Gemini models: its Claude models
//     would need Anthropic's Vertex client, and are left out), bedrock →
//     APIBedrock, and every OpenAI-compatible type → APIChat. Providers
//     that need a login flow or an endpoint of the user's own (copilot,
//     azure) are left out;
//   - the endpoint and the variable of its key ("$XAI_API_KEY"), but not
//     its default headers (they name the app that ships the catalog);
//   - per model: context_window as limit.context, default_max_tokens as
//     limit.output, can_reason, reasoning_levels, default_reasoning_effort,
//     and the prices (cost_per_1m_in, _out, and catwalk's
//     cost_per_1m_out_cached and cost_per_1m_in_cached as the cache's
//     read and write prices, as crush reads them).

// knownProvider is a provider of the embedded catalog.
type knownProvider struct {
	id, name     string
	api          string
	endpoint     string // "" for the API's own
	keyEnv       string // the variable of its key ("" for none: cloud credentials)
	defaultModel string
	models       []Model
}

func (kp *knownProvider) modelIDs() []string {
	ids := make([]string, len(kp.models))
	for i, m := range kp.models {
		ids[i] = m.ModelID
	}
	return ids
}

// catalogIDs are the ids of the embedded catalog's providers that Podcode
// takes (TestCatalogIDs keeps the list equal to the catalog's), so that
// the catalog is read (about 7 ms and 2 MB) only for one of them, never
// for a provider of the user's own: a boot that needs none of it pays
// nothing.
var catalogIDs = []string{"aihubmix", "alibaba-singapore", "alibaba-us", "anthropic", "atlascloud", "avian", "baseten", "bedrock",
	"bedrock-europe", "cerebras", "chutes", "cortecs", "deepseek", "fireworks", "gemini", "groq", "huggingface", "ionet", "kimi-coding",
	"minimax", "minimax-china", "moonshot", "nebius", "neuralwatt", "openai", "opencode-go", "opencode-zen", "openrouter", "qiniucloud",
	"scaleway", "synthetic", "venice", "vercel", "vertexai", "xai", "zai", "zhipu", "zhipu-coding"}

// known is the embedded catalog's provider pid, or nil.
func known(pid string) *knownProvider {
	if _, ok := slices.BinarySearch(catalogIDs, pid); !ok {
		return nil
	}
	return knownProviders()[pid]
}

// knownProviders is the embedded catalog, by provider id.
var knownProviders = sync.OnceValue(func() map[string]*knownProvider {
	out := map[string]*knownProvider{}
	for _, p := range embedded.GetAll() {
		kp := fromCatwalk(p)
		if kp != nil {
			out[kp.id] = kp
		}
	}
	return out
})

// catwalkAPI maps catwalk's provider types to Podcode's APIs.
var catwalkAPI = map[catwalk.Type]string{
	catwalk.TypeAnthropic:    APIAnthropic,
	catwalk.TypeOpenAI:       APIResponses,
	catwalk.TypeOpenAICompat: APIChat,
	catwalk.TypeOpenRouter:   APIChat,
	catwalk.TypeVercel:       APIChat,
	catwalk.TypeGoogle:       APIGemini,
	catwalk.TypeVertexAI:     APIVertex,
	catwalk.TypeBedrock:      APIBedrock,
}

func fromCatwalk(p catwalk.Provider) *knownProvider {
	api, ok := catwalkAPI[p.Type]
	if !ok || p.ID == "" || p.ID == catwalk.InferenceProviderCopilot {
		return nil
	}
	kp := &knownProvider{id: string(p.ID), name: p.Name, api: api, defaultModel: p.DefaultLargeModelID}
	if v, ok := strings.CutPrefix(p.APIKey, "$"); ok {
		kp.keyEnv = v
	}
	if strings.HasPrefix(p.APIEndpoint, "https://") {
		kp.endpoint = strings.TrimRight(p.APIEndpoint, "/")
	}
	if api == APIResponses && kp.endpoint != "" {
		kp.api = APIChat // an OpenAI-compatible server of its own
	}
	if api != APIGemini && api != APIVertex && api != APIBedrock && api != APIAnthropic && api != APIResponses && kp.endpoint == "" {
		return nil // an OpenAI-compatible provider whose endpoint is the user's to give
	}
	for _, m := range p.Models {
		if api == APIVertex && !strings.HasPrefix(m.ID, "gemini") {
			continue
		}
		model := Model{ProviderID: kp.id, ModelID: m.ID,
			Limit:     config.Limit{Context: int(m.ContextWindow), Output: int(min(m.DefaultMaxTokens, m.ContextWindow))},
			Reasoning: m.CanReason, ReasoningLevels: m.ReasoningLevels, DefaultEffort: m.DefaultReasoningEffort,
			Price: Price{Input: m.CostPer1MIn, Output: m.CostPer1MOut, CacheRead: m.CostPer1MOutCached, CacheWrite: m.CostPer1MInCached}}
		kp.models = append(kp.models, model)
	}
	slices.SortFunc(kp.models, func(a, b Model) int { return cmp.Compare(a.ModelID, b.ModelID) })
	if len(kp.models) == 0 {
		return nil
	}
	if _, ok := kp.find(kp.defaultModel); !ok {
		kp.defaultModel = kp.models[0].ModelID
	}
	return kp
}

// dated matches the snapshot suffix of a model id: "-20250929", Bedrock's
// "-20250929-v1:0", "-v1".
var dated = regexp.MustCompile(`(-\d{8})?(-v\d+(:\d+)?)?$`)

// find returns the model id names: the id itself, or the one whose id is
// id plus a snapshot date (claude-sonnet-4-5 is claude-sonnet-4-5-20250929,
// as Anthropic's own aliases are).
func (kp *knownProvider) find(id string) (Model, bool) {
	if id == "" {
		return Model{}, false
	}
	for _, m := range kp.models {
		if m.ModelID == id {
			return m, true
		}
	}
	var found []Model
	for _, m := range kp.models {
		if dated.ReplaceAllString(m.ModelID, "") == id {
			found = append(found, m)
		}
	}
	if len(found) == 0 {
		return Model{}, false
	}
	m := slices.MaxFunc(found, func(a, b Model) int { return cmp.Compare(a.ModelID, b.ModelID) }) // the newest snapshot
	m.ModelID = id                                                                                // sent as the user wrote it: the provider resolves its alias
	return m, true
}

// knownModel returns the model mid of the embedded catalog's provider
// pid, without connection or options.
func knownModel(pid, mid string) (Model, bool) {
	kp := known(pid)
	if kp == nil {
		return Model{}, false
	}
	return kp.find(mid)
}

// Known lists the embedded catalog's providers, sorted by id, each with
// its models (sorted), its API and the variable of its key.
func Known() []KnownProvider {
	var out []KnownProvider
	for _, kp := range knownProviders() {
		out = append(out, KnownProvider{ID: kp.id, Name: kp.name, API: kp.api, KeyEnv: kp.keyEnv, Endpoint: kp.endpoint,
			DefaultModel: kp.defaultModel, Models: slices.Clone(kp.models)})
	}
	slices.SortFunc(out, func(a, b KnownProvider) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// KnownProvider is a provider of the embedded catalog, for listing.
type KnownProvider struct {
	ID, Name, API, KeyEnv, Endpoint, DefaultModel string
	Models                                        []Model
}
