#include "CHDF5Guard.h"

#include <hdf5.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

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

int CHDF5Guard_Dread(int64_t dataset, int64_t memory_type, int64_t memory_space,
                     int64_t file_space, int64_t transfer, void *buffer) {
    struct sigaction action, old_segv, old_bus;
    memset(&action, 0, sizeof action);
    action.sa_handler = fault_handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &old_segv);
    sigaction(SIGBUS, &action, &old_bus);
    volatile herr_t status = -1;
    if (sigsetjmp(fault_jump, 1) == 0) {
        fault_armed = 1;
        status = H5Dread(dataset, memory_type, memory_space, file_space, transfer, buffer);
        fault_armed = 0;
    } else {
        status = -2;
    }
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    return status;
}
