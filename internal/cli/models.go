package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/internal/safetext"
)

func newModelsCmd() *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "models [provider]",
		Short: "List the models Podcode knows: their limits, reasoning and prices, and which can be called",
		Long: `Lists the models of the catalog built into Podcode (limits, reasoning efforts, prices in US
dollars per million tokens: input, output, cache read, cache write) and those your
podcode.json defines, by provider. A provider whose key is in the environment (or whose
cloud credentials are configured) is marked "ready": its models need no other setting, as
in

  ANTHROPIC_API_KEY=… podcode run --model anthropic/claude-sonnet-4-5 "…"

Without a provider argument, only the providers that are ready or that your file configures
are listed (--all lists every one); with one, its models. The default model is marked *.
Nothing is fetched: the catalog is the one this build of Podcode carries.
`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			cfg, err := config.Load(cwd)
			if err != nil {
				return err
			}
			cat := provider.NewCatalog(cfg)
			def, _ := cat.Default()
			list := modelList(cat, cfg)
			if len(args) == 1 {
				list = slices.DeleteFunc(list, func(p modelProvider) bool { return p.ID != args[0] })
				if len(list) == 0 {
					var ids []string
					for _, p := range modelList(cat, cfg) {
						ids = append(ids, p.ID)
					}
					return fmt.Errorf("no provider %q in the catalog or your podcode.json (known: %s)", args[0], strings.Join(ids, ", "))
				}
			} else if !all {
				list = slices.DeleteFunc(list, func(p modelProvider) bool { return !p.Ready && !p.Configured && p.ID != def.ProviderID })
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{"default": def.Name(), "providers": list})
			}
			printModels(cmd.OutOrStdout(), list, def.Name(), len(args) == 1 || all)
			if why := cat.DefaultWhy(); why != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "\nThe default model is %s: %s, and no podcode.json names a \"model\".\n", def.Name(), why)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&all, "all", false, "list every provider of the catalog, ready or not")
	return cmd
}

// modelProvider is a provider as models lists it.
type modelProvider struct {
	ID         string           `json:"id"`
	Name       string           `json:"name,omitempty"`
	API        string           `json:"api"`
	Key        string           `json:"key,omitempty"` // the variable of its key
	Ready      bool             `json:"ready"`         // its key (or cloud credentials) are in the environment
	Configured bool             `json:"configured"`    // the user's file has a provider entry for it
	Models     []provider.Model `json:"models"`
}

// modelList is the catalog's providers and the config's, each with its
// models: the config's over the catalog's.
func modelList(cat *provider.Catalog, cfg *config.Config) []modelProvider {
	byID := map[string]*modelProvider{}
	var order []string
	get := func(id string) *modelProvider {
		if p := byID[id]; p != nil {
			return p
		}
		p := &modelProvider{ID: id}
		byID[id] = p
		order = append(order, id)
		return p
	}
	for _, kp := range provider.Known() {
		p := get(kp.ID)
		p.Name, p.API, p.Key = kp.Name, kp.API, kp.KeyEnv
		for _, m := range kp.Models {
			if full, err := cat.Lookup(m.Name()); err == nil {
				m = full
			}
			p.Models = append(p.Models, m)
		}
	}
	for _, name := range cat.Names() {
		m, err := cat.Lookup(name)
		if err != nil {
			continue
		}
		p := get(m.ProviderID)
		if p.API == "" {
			p.API = m.Connection.API
		}
		if i := slices.IndexFunc(p.Models, func(x provider.Model) bool { return x.ModelID == m.ModelID }); i >= 0 {
			p.Models[i] = m
		} else {
			p.Models = append(p.Models, m)
		}
	}
	out := make([]modelProvider, 0, len(order))
	slices.Sort(order)
	for _, id := range order {
		p := byID[id]
		_, p.Configured = cfg.Provider[id]
		if len(p.Models) > 0 {
			p.Ready = ready(p.Models[0].Connection)
		}
		slices.SortFunc(p.Models, func(a, b provider.Model) int { return strings.Compare(a.ModelID, b.ModelID) })
		out = append(out, *p)
	}
	return out
}

// ready says whether a connection has what its API needs to be called.
func ready(c provider.Connection) bool {
	switch c.API {
	case provider.APIOffline:
		return true
	case provider.APIBedrock:
		return c.Region != "" && (os.Getenv("AWS_ACCESS_KEY_ID") != "" || os.Getenv("AWS_PROFILE") != "" || c.Profile != "" || os.Getenv("AWS_BEARER_TOKEN_BEDROCK") != "")
	case provider.APIVertex:
		return c.Project != "" && os.Getenv("GOOGLE_APPLICATION_CREDENTIALS") != ""
	case provider.APIChat:
		return c.BaseURL != "" && (c.APIKey != "" || strings.HasPrefix(c.BaseURL, "http://127.0.0.1") || strings.HasPrefix(c.BaseURL, "http://localhost"))
	}
	return c.APIKey != ""
}

func printModels(w io.Writer, list []modelProvider, def string, full bool) {
	for i, p := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		state := "not ready"
		switch {
		case p.Ready:
			state = "ready"
		case p.Key != "":
			state = "set " + p.Key + " to use it"
		}
		name := p.ID
		if p.Name != "" && p.Name != p.ID {
			name += " (" + p.Name + ")"
		}
		fmt.Fprintf(w, "%s: %s, %s\n", safetext.Line(name), p.API, state)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  MODEL\tCONTEXT\tOUTPUT\tREASONING\t$/M IN\tOUT\tCACHE READ\tWRITE")
		for _, m := range p.Models {
			mark := ""
			if m.Name() == def {
				mark = " *"
			}
			fmt.Fprintf(tw, "  %s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", safetext.Line(m.ModelID), mark, tokens(m.Limit.Context), tokens(m.Limit.Output), reasoning(m),
				price(m.Price.Input), price(m.Price.Output), price(m.Price.CacheRead), price(m.Price.CacheWrite))
		}
		tw.Flush()
	}
	if !full {
		fmt.Fprintln(w, "\n`podcode models --all` lists every provider of the catalog; `podcode models <provider>` one of them.")
	}
}

func tokens(n int) string {
	switch {
	case n == 0:
		return "-"
	case n >= 1_000_000 && n%1_000_000 < 100_000:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1000:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

func price(p float64) string {
	if p == 0 {
		return "-"
	}
	return strconv.FormatFloat(p, 'f', -1, 64)
}

func reasoning(m provider.Model) string {
	switch {
	case !m.Reasoning:
		return "-"
	case len(m.ReasoningLevels) > 0:
		return strings.Join(m.ReasoningLevels, ",")
	}
	return "budget"
}
