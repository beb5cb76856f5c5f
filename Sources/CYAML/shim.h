#ifndef FORCETRACE_CYAML_SHIM_H
#define FORCETRACE_CYAML_SHIM_H

// libyaml imports into Swift as it is (checked with Swift 6.3.1 and
// libyaml 0.2.5): no macros or inline functions need wrapping, so this
// header only names the library.
#include <yaml.h>

#endif
