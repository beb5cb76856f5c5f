#include "CHDF5Guard.h"

#include <hdf5.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(hid_t) == sizeof(int64_t), "hid_t is 64 bits");

static _Thread_local sigjmp_buf fault_jump;
static _Thread_local volatile sig_atomic_t fault_armed;

static void fault_handler(int signal_number) {
    if (fault_armed) {
        fault_armed = 0;
        siglongjmp(fault_jump, signal_number);
    }
    // Not during a guarded read: the default action when the instruction reruns.
    signal(signal_number, SIG_DFL);
}

// Runs call(arguments) with SIGSEGV and SIGBUS turned into the result -2,
// or, with an exit_message, into that line on stderr and _exit(1): only
// async-signal-safe calls, since the heap may already be overwritten.
static int guarded(herr_t (*call)(void *), void *arguments, const char *exit_message) {
    // Copied out of the heap first: HDF5 may overwrite heap memory before it faults.
    static _Thread_local char line[2048];
    if (exit_message) {
        strncpy(line, exit_message, sizeof line - 2);
        line[sizeof line - 2] = 0;
        if (strlen(line) == sizeof line - 2) strcat(line, "\n");
    }
    struct sigaction action, old_segv, old_bus;
    memset(&action, 0, sizeof action);
    action.sa_handler = fault_handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &old_segv);
    sigaction(SIGBUS, &action, &old_bus);
    volatile herr_t status = -1;
    if (sigsetjmp(fault_jump, 1) == 0) {
        fault_armed = 1;
        status = call(arguments);
        fault_armed = 0;
    } else {
        if (exit_message) {
            ssize_t ignored = write(STDERR_FILENO, line, strlen(line));
            (void)ignored;
            _exit(1);
        }
        status = -2;
    }
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    return status;
}

struct dataset_read {
    hid_t dataset, memory_type, memory_space, file_space, transfer;
    void *buffer;
};

static herr_t dataset_read(void *arguments) {
    struct dataset_read *a = arguments;
    return H5Dread(a->dataset, a->memory_type, a->memory_space, a->file_space, a->transfer, a->buffer);
}

int CHDF5Guard_Dread(int64_t dataset, int64_t memory_type, int64_t memory_space,
                     int64_t file_space, int64_t transfer, void *buffer, const char *exit_message) {
    struct dataset_read arguments = {dataset, memory_type, memory_space, file_space, transfer, buffer};
    return guarded(dataset_read, &arguments, exit_message);
}

struct attribute_read {
    hid_t attribute, memory_type;
    void *buffer;
};

static herr_t attribute_read(void *arguments) {
    struct attribute_read *a = arguments;
    return H5Aread(a->attribute, a->memory_type, a->buffer);
}

int CHDF5Guard_Aread(int64_t attribute, int64_t memory_type, void *buffer, const char *exit_message) {
    struct attribute_read arguments = {attribute, memory_type, buffer};
    return guarded(attribute_read, &arguments, exit_message);
}

struct attribute_names {
    hid_t object;
    void (*name_found)(const char *, void *);
    void *context;
};

static herr_t attribute_name(hid_t location, const char *name, const H5A_info_t *info, void *arguments) {
    (void)location;
    (void)info;
    struct attribute_names *a = arguments;
    a->name_found(name, a->context);
    return 0;
}

static herr_t attribute_names(void *arguments) {
    struct attribute_names *a = arguments;
    hsize_t index = 0;
    return H5Aiterate2(a->object, H5_INDEX_NAME, H5_ITER_INC, &index, attribute_name, a);
}

int CHDF5Guard_Anames(int64_t object, void (*name_found)(const char *name, void *context), void *context,
                      const char *exit_message) {
    struct attribute_names arguments = {object, name_found, context};
    return guarded(attribute_names, &arguments, exit_message);
}
