package sparsemat

import (
	"slices"
	"testing"
)

func TestGenerateCountsAndInvariants(t *testing.T) {
	specs := []Spec{
		{Kind: Banded, Rows: 1, Cols: 1, BW: 3, Seed: 1},
		{Kind: Banded, Rows: 100, Cols: 100, BW: 0, Seed: 1},
		{Kind: Banded, Rows: 100, Cols: 100, BW: 7, Seed: 2},
		{Kind: Banded, Rows: 5, Cols: 5, BW: 9, Seed: 1},
		{Kind: Uniform, Rows: 300, Cols: 200, NNZ: 5000, Seed: 3},
		{Kind: Uniform, Rows: 10, Cols: 10, NNZ: 100, Seed: 3}, // full
		{Kind: Uniform, Rows: 40, Cols: 7, NNZ: 200, Seed: 4},  // rows over half full
		{Kind: PowerLaw, Rows: 1000, Cols: 1000, NNZ: 20000, Seed: 5},
		{Kind: PowerLaw, Rows: 64, Cols: 16, NNZ: 900, Seed: 6}, // the long rows spill
	}
	for _, s := range specs {
		if err := s.Validate(); err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		m := s.Generate()
		if err := m.Check(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
		if m.NNZ() != s.CountNNZ() {
			t.Errorf("%+v: %d entries, CountNNZ says %d", s, m.NNZ(), s.CountNNZ())
		}
		for _, v := range m.Val {
			if v < -1 || v >= 1 {
				t.Fatalf("%+v: value %v outside [-1, 1)", s, v)
			}
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, k := range Kinds {
		s := Spec{Kind: k, Rows: 500, Cols: 500, NNZ: 4000, BW: 4, Seed: 9}
		a, b := s.Generate(), s.Generate()
		if !slices.Equal(a.RowPtr, b.RowPtr) || !slices.Equal(a.ColIdx, b.ColIdx) || !slices.Equal(a.Val, b.Val) {
			t.Errorf("%s: two generations differ", k)
		}
		s.Seed = 10
		if c := s.Generate(); slices.Equal(a.Val, c.Val) {
			t.Errorf("%s: seeds 9 and 10 give the same values", k)
		}
	}
}

func TestPowerLawRowsAreSkewed(t *testing.T) {
	m := Spec{Kind: PowerLaw, Rows: 4096, Cols: 4096, NNZ: 65536, Seed: 1}.Generate()
	if longest, mean := m.MaxRowNNZ(), m.NNZ()/m.Rows; longest < 50*mean {
		t.Errorf("longest row %d, mean %d: not a power law", longest, mean)
	}
}

func TestValidateRefuses(t *testing.T) {
	for _, s := range []Spec{
		{Kind: "dense", Rows: 4, Cols: 4},
		{Kind: Banded, Rows: 4, Cols: 5, BW: 1},
		{Kind: Banded, Rows: 0, Cols: 0},
		{Kind: Uniform, Rows: 4, Cols: 4, NNZ: 17},
		{Kind: PowerLaw, Rows: 4, Cols: 4, NNZ: 0},
		{Kind: Uniform, Rows: 1 << 20, Cols: 1 << 20, NNZ: 1 << 32},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: valid", s)
		}
	}
}
