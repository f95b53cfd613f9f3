package gemm

import "unsafe"

// packLines packs lines (≤ w) lines of kb values — rows of op(A) or
// columns of op(B) — into dst as kg ≥ ⌈kb/group⌉ steps of w words, word
// (g, l) at dst[g*w+l] holding values g·group… of line l in its lanes, the
// first in the low bits. Lines past lines, and values past kb, are zeros.
// With kContig line l's value p is src[l*ld+p], else src[p*ld+l]; then,
// with vec, whole groups of 16 lines are packed by AVX-512 code
// (packStepsVec), for kernels that run only where the CPU has it.
func packLines[S lowpIn](src []S, ld int, kContig bool, lines, w, kb, kg int, f wordFormat, vec bool, dst []uint32) {
	g := f.group()
	dst = dst[:kg*w]
	clear(dst[ceilDiv(kb, g)*w:]) // the steps past kb, for the AMX kernels' whole chunks
	kg = ceilDiv(kb, g)
	if lines < w {
		for p := 0; p < kg; p++ {
			clear(dst[p*w+lines : p*w+w])
		}
	}
	if lines == 0 {
		return
	}
	if g == 1 { // one value per word: a conversion
		if kContig {
			_ = src[(lines-1)*ld+kb-1]
			done := 0 // values of each line already widened
			if vec {
				done = widenRowsVec(src, ld, lines, w, kb, dst, f)
			}
			for l := 0; l < lines && done < kb; l++ {
				widen(src[l*ld+done:l*ld+kb], f, dst[done*w+l:], w)
			}
			return
		}
		_ = src[(kb-1)*ld+lines-1]
		done := 0 // lines of every step already widened
		if vec {
			done = widenStepsVec(src, ld, kb, dst, w, lines, f)
		}
		for p := 0; p < kb; p++ {
			widen(src[p*ld+done:p*ld+lines], f, dst[p*w+done:], 1)
		}
		return
	}
	raw := rawWords[S](f)
	full := kb / g // words made of g values from the source
	if kContig {
		_ = src[(lines-1)*ld+kb-1]
		done := 0 // words of each line already packed
		if vec && raw {
			done = packRowsVec(src, ld, lines, w, full, dst, f)
		}
		for l := 0; l < lines; l++ {
			line := src[l*ld : l*ld+kb]
			if raw && full > done {
				// The g values of a word are contiguous: one 32-bit load.
				words := unsafe.Slice((*uint32)(unsafe.Pointer(&line[0])), full)[done:]
				d := dst[done*w:]
				if f == wordQuad8Biased {
					for p, v := range words {
						d[p*w+l] = v ^ 0x80808080
					}
				} else {
					for p, v := range words {
						d[p*w+l] = v
					}
				}
			} else if !raw {
				for p := 0; p < full; p++ {
					var v uint32
					for q := 0; q < g; q++ {
						v |= lane(line[p*g+q], f) << (q * 32 / g)
					}
					dst[p*w+l] = v
				}
			}
			if full < kg { // the last word, partly zeros
				var v uint32
				for q := 0; full*g+q < kb; q++ {
					v |= lane(line[full*g+q], f) << (q * 32 / g)
				}
				dst[full*w+l] = v
			}
		}
		return
	}
	_ = src[(kb-1)*ld+lines-1]
	done := 0 // lines of the steps p < full already packed
	if vec && raw && full > 0 {
		done = packStepsVec(src, ld, full, dst, w, lines, f)
	}
	for p := 0; p < kg; p++ {
		d := dst[p*w : p*w+lines]
		switch {
		case raw && g == 2 && p < full:
			d = d[done:]
			r0, r1 := src[2*p*ld+done:2*p*ld+lines], src[(2*p+1)*ld+done:(2*p+1)*ld+lines]
			for l := range d {
				d[l] = uint32(uint16(r0[l])) | uint32(uint16(r1[l]))<<16
			}
		case raw && g == 4 && p < full:
			d = d[done:]
			r0, r1 := src[4*p*ld+done:4*p*ld+lines], src[(4*p+1)*ld+done:(4*p+1)*ld+lines]
			r2, r3 := src[(4*p+2)*ld+done:(4*p+2)*ld+lines], src[(4*p+3)*ld+done:(4*p+3)*ld+lines]
			x := uint32(0)
			if f == wordQuad8Biased {
				x = 0x80808080
			}
			for l := range d {
				d[l] = (uint32(uint8(r0[l])) | uint32(uint8(r1[l]))<<8 | uint32(uint8(r2[l]))<<16 | uint32(uint8(r3[l]))<<24) ^ x
			}
		default:
			clear(d)
			for q := 0; q < g && p*g+q < kb; q++ {
				row := src[(p*g+q)*ld : (p*g+q)*ld+lines]
				for l, v := range row {
					d[l] |= lane(v, f) << (q * 32 / g)
				}
			}
		}
	}
}

// widen sets dst[i*stride] to src[i] converted to a word of f, a format
// of one value per word.
func widen[S lowpIn](src []S, f wordFormat, dst []uint32, stride int) {
	if len(src) == 0 {
		return
	}
	_ = dst[(len(src)-1)*stride]
	switch f {
	case wordBF16ToF32:
		for i, v := range src {
			dst[i*stride] = uint32(v) << 16
		}
	case wordF16ToF32:
		t := f16Table()
		for i, v := range src {
			dst[i*stride] = t[uint16(v)]
		}
	default:
		for i, v := range src {
			dst[i*stride] = lane(v, f)
		}
	}
}

// lane is v converted to its lane of a word of format f (in the low bits).
func lane[S lowpIn](v S, f wordFormat) uint32 {
	switch f {
	case wordBF16ToF32:
		return uint32(v) << 16
	case wordF16ToF32:
		return f16ToF32Bits(uint16(v))
	case wordInt32:
		return uint32(int32(v))
	case wordPair16: // bf16 bits as they are; 8-bit integers widened to int16
		return uint32(uint16(int16(v)))
	case wordQuad8Biased:
		return uint32(uint8(v) ^ 0x80)
	}
	return uint32(uint8(v))
}

// rawWords reports whether a word of f is its group of S values as they
// lie in memory (up to the bias): one 32-bit load.
func rawWords[S lowpIn](f wordFormat) bool {
	var z S
	return f == wordQuad8 || f == wordQuad8Biased || f == wordPair16 && unsafe.Sizeof(z) == 2
}

// packChunkedRows packs rows (≤ mr) rows of A, k contiguous (src[i*ld+p]),
// straight into AMX's chunked layout (see chunkRows): each row's 16 words
// of a chunk are 64 contiguous bytes of the source. f is a raw format
// (rawWords).
func packChunkedRows[S lowpIn](src []S, ld, rows, mr, kb, kg int, f wordFormat, dst []uint32) {
	g := f.group()
	full := kb / g
	dst = dst[:mr*kg]
	for i := 0; i < mr; i++ {
		if i >= rows {
			for c := 0; c < kg; c += amxChunk {
				clear(dst[c*mr+i*amxChunk : c*mr+(i+1)*amxChunk])
			}
			continue
		}
		line := src[i*ld : i*ld+kb]
		var words []uint32
		if full > 0 {
			words = unsafe.Slice((*uint32)(unsafe.Pointer(&line[0])), full)
		}
		for c := 0; c < kg; c += amxChunk {
			out := dst[c*mr+i*amxChunk : c*mr+(i+1)*amxChunk]
			n := copy(out, words[min(c, full):min(c+amxChunk, full)])
			clear(out[n:])
			if f == wordQuad8Biased {
				for q := range out[:n] {
					out[q] ^= 0x80808080
				}
			}
			if full*g < kb && c <= full && full < c+amxChunk { // the last word, partly zeros
				var v uint32
				for q := 0; full*g+q < kb; q++ {
					v |= lane(line[full*g+q], f) << (q * 32 / g)
				}
				out[full-c] = v
			}
		}
	}
}
