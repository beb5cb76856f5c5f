#ifndef FORCETRACE_CDEFLATE_SHIM_H
#define FORCETRACE_CDEFLATE_SHIM_H

// libdeflate: a whole-buffer zlib decompressor about twice as fast as zlib's
// inflate. Trace chunks are small and their inflated size is known, which is
// the case libdeflate is built for. Nothing here needs a wrapper.
#include <libdeflate.h>

#endif
