package outcome

import (
	"cmp"
	"fmt"
	"strings"

	"bbslab/loadtest/measure"
)

// Disturbance is what the experiment did about a machine busy with other work.
type Disturbance struct {
	Off             bool              `json:"off,omitempty"`
	Threshold       float64           `json:"threshold"`
	MaxAttempts     int               `json:"max_attempts"`
	MaxExtraSeconds float64           `json:"max_extra_seconds"`
	CPUPerRequest   float64           `json:"cpu_per_request"`
	NoiseFloor      float64           `json:"noise_floor_percent,omitempty"`
	Confidence      float64           `json:"confidence,omitempty"`
	SettleSeconds   float64           `json:"settle_seconds,omitempty"`
	Interference    string            `json:"interference,omitempty"`
	Steal           string            `json:"steal,omitempty"`
	CPU             string            `json:"cpu,omitempty"`
	ExtraSeconds    float64           `json:"extra_seconds"`
	Remeasured      int               `json:"remeasured"`
	Baseline        *measure.Baseline `json:"baseline,omitempty"`
}

// Interference is what others took of the server's and the generator's cores
// over one measured span, in % of one core; absent where not read.
type Interference struct {
	Server                 *float64 `json:"server_percent,omitempty"`
	Steal                  *float64 `json:"steal_percent,omitempty"`
	Generator              *float64 `json:"generator_percent,omitempty"`
	Expected               *float64 `json:"expected_percent,omitempty"`
	GeneratorExpected      *float64 `json:"generator_expected_percent,omitempty"`
	GeneratorSteal         *float64 `json:"generator_steal_percent,omitempty"`
	StealBaseline          *float64 `json:"steal_baseline_percent,omitempty"`
	GeneratorStealBaseline *float64 `json:"generator_steal_baseline_percent,omitempty"`
}

// worst is the larger of the server's and the generator's interference.
func (i *Interference) worst() (float64, bool) {
	if i == nil || i.Server == nil && i.Generator == nil {
		return 0, false
	}
	s, g := cmp.Or(i.Server, i.Generator), cmp.Or(i.Generator, i.Server)
	return max(*s, *g), true
}

// Text prints the interference of each side, with its steal and what was expected.
func (i *Interference) Text() string {
	if i == nil || i.Server == nil && i.Generator == nil {
		return "not read"
	}
	var parts []string
	for _, c := range []struct {
		name               string
		v, steal, expected *float64
	}{{"server's cores", i.Server, i.Steal, i.Expected}, {"generator's", i.Generator, i.GeneratorSteal, i.GeneratorExpected}} {
		if c.v == nil {
			continue
		}
		s := fmt.Sprintf("%s %.1f %%", c.name, *c.v)
		var in []string
		if c.steal != nil {
			in = append(in, fmt.Sprintf("steal %.1f", *c.steal))
		}
		if c.expected != nil {
			in = append(in, fmt.Sprintf("%.1f expected", *c.expected))
		}
		if len(in) > 0 {
			s += " (" + strings.Join(in, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
