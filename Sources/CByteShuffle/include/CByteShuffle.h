#ifndef CBYTESHUFFLE_H
#define CBYTESHUFFLE_H

#include <stddef.h>
#include <stdint.h>

// Undoes HDF5's shuffle filter: `planes` holds byte j of every element of
// `size` bytes together, as plane j of `rows` bytes; `out` receives `rows`
// elements, each as its bytes were before shuffling. Writes exactly
// rows * size bytes. The buffers must not overlap.
void ft_unshuffle(const uint8_t *planes, uint8_t *out, size_t rows, size_t size);

#endif
