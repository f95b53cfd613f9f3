package elem

// ulpBounds are the MaxULP figures: the maximum errors TestAccuracy
// measured (in the comments, on the development machine), with a margin for
// the float64 inputs the sampled sweep did not meet. The generic kernels
// evaluate in float64 with the math package and round once, so their
// float32 results are within 0.5 ulp plus a sliver; their float64 ones
// carry math's own error (Exp on amd64 up to 1.56 ulp).
var ulpBounds = map[boundKey]float64{
	{implGeneric, "exp", false}:     0.51, // 0.500
	{implGeneric, "exp", true}:      2,    // 1.558
	{implGeneric, "tanh", false}:    0.51, // 0.500
	{implGeneric, "tanh", true}:     1.5,  // 1.293
	{implGeneric, "sigmoid", false}: 0.51, // 0.500
	{implGeneric, "sigmoid", true}:  3,    // 2.411
	{implAVX2, "exp", false}:        1.5,  // 1.003
	{implAVX2, "exp", true}:         1.5,  // 1.032
	{implAVX2, "tanh", false}:       1.5,  // 1.232 over every float32 (TestAllFloat32)
	{implAVX2, "tanh", true}:        2,    // 1.303
	{implAVX2, "sigmoid", false}:    2.5,  // 2.280
	{implAVX2, "sigmoid", true}:     2.5,  // 2.169
	// The AVX-512 kernels compute the same operations in wider vectors:
	// the same bits (TestZmmMathBits), so the same bounds.
	{implAVX512, "exp", false}:     1.5,
	{implAVX512, "exp", true}:      1.5,
	{implAVX512, "tanh", false}:    1.5,
	{implAVX512, "tanh", true}:     2,
	{implAVX512, "sigmoid", false}: 2.5,
	{implAVX512, "sigmoid", true}:  2.5,
}
