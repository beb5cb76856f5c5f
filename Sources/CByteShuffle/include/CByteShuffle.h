#ifndef CBYTESHUFFLE_H
#define CBYTESHUFFLE_H

#include <stddef.h>
#include <stdint.h>

// Undoes HDF5's shuffle filter for elements of 2, 4 and 8 bytes: `planes`
// holds byte j of every element together, as plane j of `rows` bytes; `out`
// receives `rows` elements in the machine's (little-endian) order. Writes
// exactly rows * size bytes. The buffers must not overlap.
void ft_unshuffle2(const uint8_t *planes, uint8_t *out, size_t rows);
void ft_unshuffle4(const uint8_t *planes, uint8_t *out, size_t rows);
void ft_unshuffle8(const uint8_t *planes, uint8_t *out, size_t rows);

#endif
