// The C++ terminate handler of the crash handler's Apple-platform sibling: records the type (and
// what(), for a std::exception) of the exception that is ending the process, then lets the
// previous terminate handler (normally abort) run, so that the crash report that follows names
// the C++ exception rather than only the abort. See include/vigil_crash_darwin.h.
//
// Empty on Linux (the body is behind __APPLE__); type-checked against the iOS 17 / macOS 14 SDKs,
// not run (docs/architecture.md).
#include "vigil_crash_darwin.h"

#if defined(__APPLE__)
#include <cstdlib>
#include <cxxabi.h>
#include <exception>
#include <typeinfo>

static std::terminate_handler vigil_previous_terminate = nullptr;

static void vigil_terminate() {
    const std::type_info *type = abi::__cxa_current_exception_type();
    const char *name = type != nullptr ? type->name() : "std::terminate";
    const char *reason = "";
    if (std::exception_ptr current = std::current_exception()) {
        try {
            std::rethrow_exception(current);
        } catch (const std::exception &exception) {
            reason = exception.what();
        } catch (...) {
        }
    }
    vigil_crash_set_exception(name, reason);
    if (vigil_previous_terminate != nullptr) vigil_previous_terminate();
    std::abort();
}

extern "C" void vigil_crash_install_terminate_handler(void) {
    std::terminate_handler previous = std::set_terminate(vigil_terminate);
    if (previous != vigil_terminate) vigil_previous_terminate = previous;
}

#else

extern "C" void vigil_crash_install_terminate_handler(void) {}

#endif
