#include "CByteShuffle.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// With SSE2 (every x86-64), sixteen rows at a time: interleaving the planes'
// bytes, then their pairs, then their quads, is an unshuffle in log2(size)
// rounds of unpacks, each of which Swift's vectoriser did not find.

// The rows from `first` on, one byte at a time: the tail, other element
// sizes, or every row without SSE2.
static void unshuffle_rows(const uint8_t *planes, uint8_t *out, size_t rows, size_t size, size_t first) {
    for (size_t row = first; row < rows; row++) {
        for (size_t byte = 0; byte < size; byte++) out[row * size + byte] = planes[byte * rows + row];
    }
}

#if defined(__SSE2__)
static inline __m128i load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline void store(uint8_t *p, __m128i v) { _mm_storeu_si128((__m128i *)p, v); }
#endif

static void unshuffle2(const uint8_t *planes, uint8_t *out, size_t rows) {
    size_t row = 0;
#if defined(__SSE2__)
    const uint8_t *p0 = planes, *p1 = planes + rows;
    for (; row + 16 <= rows; row += 16) {
        __m128i a = load(p0 + row), b = load(p1 + row);
        store(out + 2 * row, _mm_unpacklo_epi8(a, b));
        store(out + 2 * row + 16, _mm_unpackhi_epi8(a, b));
    }
#endif
    unshuffle_rows(planes, out, rows, 2, row);
}

static void unshuffle4(const uint8_t *planes, uint8_t *out, size_t rows) {
    size_t row = 0;
#if defined(__SSE2__)
    const uint8_t *p0 = planes, *p1 = planes + rows, *p2 = planes + 2 * rows, *p3 = planes + 3 * rows;
    for (; row + 16 <= rows; row += 16) {
        __m128i a = load(p0 + row), b = load(p1 + row), c = load(p2 + row), d = load(p3 + row);
        __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
        __m128i cd0 = _mm_unpacklo_epi8(c, d), cd1 = _mm_unpackhi_epi8(c, d);
        uint8_t *o = out + 4 * row;
        store(o, _mm_unpacklo_epi16(ab0, cd0));
        store(o + 16, _mm_unpackhi_epi16(ab0, cd0));
        store(o + 32, _mm_unpacklo_epi16(ab1, cd1));
        store(o + 48, _mm_unpackhi_epi16(ab1, cd1));
    }
#endif
    unshuffle_rows(planes, out, rows, 4, row);
}

static void unshuffle8(const uint8_t *planes, uint8_t *out, size_t rows) {
    size_t row = 0;
#if defined(__SSE2__)
    const uint8_t *p[8];
    for (int j = 0; j < 8; j++) p[j] = planes + (size_t)j * rows;
    for (; row + 16 <= rows; row += 16) {
        // Bytes 0-3 of each row as quads (rows 0-3, 4-7, 8-11, 12-15), then bytes 4-7.
        __m128i low[4], high[4];
        for (int half = 0; half < 2; half++) {
            const uint8_t *const *q = p + 4 * half;
            __m128i a = load(q[0] + row), b = load(q[1] + row), c = load(q[2] + row), d = load(q[3] + row);
            __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
            __m128i cd0 = _mm_unpacklo_epi8(c, d), cd1 = _mm_unpackhi_epi8(c, d);
            __m128i *quads = half == 0 ? low : high;
            quads[0] = _mm_unpacklo_epi16(ab0, cd0);
            quads[1] = _mm_unpackhi_epi16(ab0, cd0);
            quads[2] = _mm_unpacklo_epi16(ab1, cd1);
            quads[3] = _mm_unpackhi_epi16(ab1, cd1);
        }
        uint8_t *o = out + 8 * row;
        for (int k = 0; k < 4; k++) {
            store(o + 32 * k, _mm_unpacklo_epi32(low[k], high[k]));
            store(o + 32 * k + 16, _mm_unpackhi_epi32(low[k], high[k]));
        }
    }
#endif
    unshuffle_rows(planes, out, rows, 8, row);
}

void ft_unshuffle(const uint8_t *planes, uint8_t *out, size_t rows, size_t size) {
    switch (size) {
    case 2: unshuffle2(planes, out, rows); break;
    case 4: unshuffle4(planes, out, rows); break;
    case 8: unshuffle8(planes, out, rows); break;
    default: unshuffle_rows(planes, out, rows, size, 0); break;
    }
}
