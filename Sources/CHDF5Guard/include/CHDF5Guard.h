#ifndef FORCETRACE_CHDF5GUARD_H
#define FORCETRACE_CHDF5GUARD_H

#include <stdint.h>

// HDF5 1.10 trusts the sizes and offsets in a file's global heap when it
// converts variable-length strings: a damaged heap makes H5Dread fault in
// memcpy (found with byte-overwritten trace files in forcetrace's damage
// tests). CHDF5Guard_Dread runs H5Dread with SIGSEGV and SIGBUS during the
// call turned into the return value -2, so a damaged file becomes an error
// message instead of a crash. HDF5's state after such a fault is undefined:
// the caller must stop using HDF5 (the Swift layer marks it poisoned).
// This is C, not a header shim, because the jump buffer needs thread-local
// storage that Swift's importer does not emit. Remove once HDF5 checks heap
// objects when reading.
//
// The ids are hid_t (int64_t) and the status herr_t (int); spelled out here
// so this header does not need hdf5.h.
//
// With exit_message (not NULL), a fault writes it to stderr and calls
// _exit(1) instead: the fault may come after HDF5 already wrote past a
// buffer, and then neither unwinding nor malloc is safe.
int CHDF5Guard_Dread(int64_t dataset, int64_t memory_type, int64_t memory_space,
                     int64_t file_space, int64_t transfer, void *buffer, const char *exit_message);

// The same for H5Aread: variable-length string attributes also live in the
// global heap (found by forcetrace's byte-flip test, Tests/python/test_byte_flips.py).
int CHDF5Guard_Aread(int64_t attribute, int64_t memory_type, void *buffer, const char *exit_message);

// H5Aiterate2 by name, calling name_found(name, context) for each attribute:
// a damaged attribute list faults inside HDF5 while it lists the names
// (found by importing byte-flipped trace files, which lists them to copy).
int CHDF5Guard_Anames(int64_t object, void (*name_found)(const char *name, void *context), void *context,
                      const char *exit_message);

#endif
