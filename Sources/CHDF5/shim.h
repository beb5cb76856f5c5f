#ifndef FORCETRACE_CHDF5_SHIM_H
#define FORCETRACE_CHDF5_SHIM_H

#include <hdf5.h>
#include <hdf5_hl.h>

// HDF5 spells its predefined types, file flags and property classes as macros
// that expand to a library call plus a global (H5OPEN H5T_NATIVE_INT32_g), so
// Swift cannot import them. Checked with HDF5 1.10.8 and Swift 6.3.1. These
// wrappers go away only if HDF5 exports them as functions or constants.

static inline hid_t CHDF5_NATIVE_INT8(void) { return H5T_NATIVE_INT8; }
static inline hid_t CHDF5_NATIVE_INT16(void) { return H5T_NATIVE_INT16; }
static inline hid_t CHDF5_NATIVE_INT32(void) { return H5T_NATIVE_INT32; }
static inline hid_t CHDF5_NATIVE_INT64(void) { return H5T_NATIVE_INT64; }
static inline hid_t CHDF5_NATIVE_UINT8(void) { return H5T_NATIVE_UINT8; }
static inline hid_t CHDF5_NATIVE_UINT16(void) { return H5T_NATIVE_UINT16; }
static inline hid_t CHDF5_NATIVE_UINT32(void) { return H5T_NATIVE_UINT32; }
static inline hid_t CHDF5_NATIVE_UINT64(void) { return H5T_NATIVE_UINT64; }
static inline hid_t CHDF5_NATIVE_FLOAT(void) { return H5T_NATIVE_FLOAT; }
static inline hid_t CHDF5_NATIVE_DOUBLE(void) { return H5T_NATIVE_DOUBLE; }
static inline hid_t CHDF5_C_S1(void) { return H5T_C_S1; }

static inline unsigned CHDF5_ACC_RDONLY(void) { return H5F_ACC_RDONLY; }
static inline unsigned CHDF5_ACC_RDWR(void) { return H5F_ACC_RDWR; }
static inline unsigned CHDF5_ACC_TRUNC(void) { return H5F_ACC_TRUNC; }
static inline unsigned CHDF5_ACC_EXCL(void) { return H5F_ACC_EXCL; }
static inline unsigned CHDF5_ACC_SWMR_WRITE(void) { return H5F_ACC_SWMR_WRITE; }
static inline unsigned CHDF5_ACC_SWMR_READ(void) { return H5F_ACC_SWMR_READ; }

static inline hid_t CHDF5_P_FILE_ACCESS(void) { return H5P_FILE_ACCESS; }
static inline hid_t CHDF5_P_FILE_CREATE(void) { return H5P_FILE_CREATE; }
static inline hid_t CHDF5_P_DATASET_CREATE(void) { return H5P_DATASET_CREATE; }
static inline hid_t CHDF5_P_LINK_CREATE(void) { return H5P_LINK_CREATE; }
static inline hid_t CHDF5_P_OBJECT_COPY(void) { return H5P_OBJECT_COPY; }
static inline unsigned CHDF5_O_COPY_WITHOUT_ATTR_FLAG(void) { return H5O_COPY_WITHOUT_ATTR_FLAG; }
static inline hid_t CHDF5_P_DEFAULT(void) { return H5P_DEFAULT; }
static inline hid_t CHDF5_S_ALL(void) { return H5S_ALL; }
static inline hid_t CHDF5_E_DEFAULT(void) { return H5E_DEFAULT; }
static inline hsize_t CHDF5_S_UNLIMITED(void) { return H5S_UNLIMITED; }
static inline size_t CHDF5_T_VARIABLE(void) { return H5T_VARIABLE; }
// HDF5's error classes and codes, for classifying failures (HDF5Error.Kind).
static inline hid_t CHDF5_E_FILE(void) { return H5E_FILE; }
static inline hid_t CHDF5_E_IO(void) { return H5E_IO; }
static inline hid_t CHDF5_E_VFL(void) { return H5E_VFL; }
static inline hid_t CHDF5_E_WRITEERROR(void) { return H5E_WRITEERROR; }
static inline hid_t CHDF5_E_READERROR(void) { return H5E_READERROR; }
static inline hid_t CHDF5_E_CANTOPENFILE(void) { return H5E_CANTOPENFILE; }
static inline hid_t CHDF5_E_CANTCREATE(void) { return H5E_CANTCREATE; }
static inline hid_t CHDF5_E_TRUNCATED(void) { return H5E_TRUNCATED; }
static inline hid_t CHDF5_E_CANTLOCKFILE(void) { return H5E_CANTLOCKFILE; }
static inline hid_t CHDF5_E_FILEOPEN(void) { return H5E_FILEOPEN; }
static inline hid_t CHDF5_E_NOTHDF5(void) { return H5E_NOTHDF5; }

// H5F_LIBVER_LATEST is a #define alias of the newest enum member.
static inline H5F_libver_t CHDF5_LIBVER_LATEST(void) { return H5F_LIBVER_LATEST; }


#endif
