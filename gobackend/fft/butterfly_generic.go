package fft

import "math"

// The Go stages, one per radix (the stage type in fft.go). Each reads the
// r inputs of butterfly (p, q) at x[q + s·(p + k·m)] and writes its r
// outputs, times their twiddles, at y[q + s·(r·p + k)], for p and q in
// the ranges of rg (all of the stage, or a thread's part).

// span is a stage's butterflies p0 ≤ p < p1, q0 ≤ q < q1.
type span struct{ p0, p1, q0, q1 int }

func radix2[C Complex](st *stage[C], y, x []C, rg span) {
	m, s := st.m, st.s
	for p := rg.p0; p < rg.p1; p++ {
		w := st.tw[p]
		for q := rg.q0; q < rg.q1; q++ {
			a, b := x[q+s*p], x[q+s*(p+m)]
			y[q+s*2*p] = a + b
			y[q+s*(2*p+1)] = w * (a - b)
		}
	}
}

// rot is i for the forward transform and −i for the inverse: the factor
// e^(∓2πi/4)'s conjugate that the radix-4 butterfly turns b − d by.
func rot[C Complex](inverse bool) C {
	if inverse {
		return C(-1i)
	}
	return C(1i)
}

func radix4[C Complex](st *stage[C], y, x []C, rg span, inverse bool) {
	m, s := st.m, st.s
	j := rot[C](inverse)
	for p := rg.p0; p < rg.p1; p++ {
		w1, w2, w3 := st.tw[3*p], st.tw[3*p+1], st.tw[3*p+2]
		for q := rg.q0; q < rg.q1; q++ {
			a, b, c, d := x[q+s*p], x[q+s*(p+m)], x[q+s*(p+2*m)], x[q+s*(p+3*m)]
			apc, amc, bpd, jbmd := a+c, a-c, b+d, j*(b-d)
			o := q + s*4*p
			y[o] = apc + bpd
			y[o+s] = w1 * (amc - jbmd)
			y[o+2*s] = w2 * (apc - bpd)
			y[o+3*s] = w3 * (amc + jbmd)
		}
	}
}

// The radix-3 and radix-5 butterflies' constants: cos and sin of 2π/3,
// 2π/5 and 4π/5.
var (
	sin3         = math.Sqrt(3) / 2
	cos5a, sin5a = math.Cos(2 * math.Pi / 5), math.Sin(2 * math.Pi / 5)
	cos5b, sin5b = math.Cos(4 * math.Pi / 5), math.Sin(4 * math.Pi / 5)
)

// isin is sign·i·v with sign −1 forward, +1 inverse: e^(sign·2πi/r)'s
// imaginary part's factor.
func isin[C Complex](v float64, inverse bool) C {
	if inverse {
		return C(complex(0, v))
	}
	return C(complex(0, -v))
}

func radix3[C Complex](st *stage[C], y, x []C, rg span, inverse bool) {
	m, s := st.m, st.s
	half, is := C(0.5), isin[C](sin3, inverse)
	for p := rg.p0; p < rg.p1; p++ {
		w1, w2 := st.tw[2*p], st.tw[2*p+1]
		for q := rg.q0; q < rg.q1; q++ {
			a, b, c := x[q+s*p], x[q+s*(p+m)], x[q+s*(p+2*m)]
			t := b + c
			u, v := a-half*t, is*(b-c)
			o := q + s*3*p
			y[o] = a + t
			y[o+s] = w1 * (u + v)
			y[o+2*s] = w2 * (u - v)
		}
	}
}

func radix5[C Complex](st *stage[C], y, x []C, rg span, inverse bool) {
	m, s := st.m, st.s
	ca, cb := C(complex(cos5a, 0)), C(complex(cos5b, 0))
	sa, sb := isin[C](sin5a, inverse), isin[C](sin5b, inverse)
	for p := rg.p0; p < rg.p1; p++ {
		tw := st.tw[4*p : 4*p+4]
		for q := rg.q0; q < rg.q1; q++ {
			x0, x1, x2 := x[q+s*p], x[q+s*(p+m)], x[q+s*(p+2*m)]
			x3, x4 := x[q+s*(p+3*m)], x[q+s*(p+4*m)]
			t1, t2, t3, t4 := x1+x4, x2+x3, x1-x4, x2-x3
			a1, a2 := x0+ca*t1+cb*t2, x0+cb*t1+ca*t2
			b1, b2 := sa*t3+sb*t4, sb*t3-sa*t4
			o := q + s*5*p
			y[o] = x0 + t1 + t2
			y[o+s] = tw[0] * (a1 + b1)
			y[o+2*s] = tw[1] * (a2 + b2)
			y[o+3*s] = tw[2] * (a2 - b2)
			y[o+4*s] = tw[3] * (a1 - b1)
		}
	}
}
