package schedule

import "time"

// Phrase is a sentence, or a part of one, for the edge to word in the reader's language: Key
// names it in the catalogue, and the fields hold its placeholders' values by kind, so each
// language writes them its own way. schedule never words a Phrase; it only says which.
type Phrase struct {
	Key string `json:"k"`
	// Args are values written as they are (ids, grades, codes); "" reads as "none".
	Args map[string]string `json:"a,omitempty"`
	// Dates are days ("2026-11-29"), written the language's way.
	Dates map[string]string `json:"dt,omitempty"`
	// Count, when set, chooses the plural form and fills {{.Count}}.
	Count *int `json:"n,omitempty"`
	// Times are instants, written in Helsinki time the language's way.
	Times map[string]time.Time `json:"t,omitempty"`
	// Spans are durations in seconds.
	Spans map[string]int64 `json:"s,omitempty"`
	// Parts are values that are phrases themselves; more than one is listed as the language
	// lists things ("a, b and c").
	Parts map[string][]Phrase `json:"p,omitempty"`
	// Text is a fallback wording from outside schedule (a failed call's error, as its caller
	// put it), for a Key the catalogue does not know or a failure of no known kind.
	Text string `json:"x,omitempty"`
}

// say starts a phrase.
func say(key string) Phrase { return Phrase{Key: key} }

func (p Phrase) arg(name, v string) Phrase {
	if p.Args == nil {
		p.Args = map[string]string{}
	}
	p.Args[name] = v
	return p
}

func (p Phrase) date(name string, d Date) Phrase {
	if p.Dates == nil {
		p.Dates = map[string]string{}
	}
	p.Dates[name] = d.String()
	return p
}

func (p Phrase) count(n int) Phrase {
	p.Count = &n
	return p
}

func (p Phrase) at(name string, t time.Time) Phrase {
	if p.Times == nil {
		p.Times = map[string]time.Time{}
	}
	p.Times[name] = t
	return p
}

func (p Phrase) span(name string, d time.Duration) Phrase {
	if p.Spans == nil {
		p.Spans = map[string]int64{}
	}
	p.Spans[name] = int64(d / time.Second)
	return p
}

func (p Phrase) part(name string, parts ...Phrase) Phrase {
	if p.Parts == nil {
		p.Parts = map[string][]Phrase{}
	}
	p.Parts[name] = append(p.Parts[name], parts...)
	return p
}
