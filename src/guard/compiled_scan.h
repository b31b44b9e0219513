#pragma once
// The scan of what the compiler produced (guard.h: scan_compiled_code), in
// parts the tests can call on their own. Each takes the file's text or bytes
// and the name findings should carry ("kernel.ptx"); each returns findings,
// never throws. Rule ids are those of guard_rules.h.
#include <string>
#include <vector>

#include "autoresearch/guard/guard.h"

namespace ar::guard_detail {

// PTX text: timer special registers (%clock, %clock64, %globaltimer*, %pm*),
// launch-identifying ones (%envreg*, %gridid), functions the module declares
// but does not define (.extern .func: vprintf, malloc, the device runtime's
// launch and stream calls...), and .extern .global/.const variables.
std::vector<GuardFinding> scan_ptx(const std::string& ptx, const std::string& name);

// SASS as cuobjdump -sass or nvdisasm print it: S2R/CS2R/S2UR of SR_CLOCK*,
// SR_GLOBALTIMER*, SR_PM*.
std::vector<GuardFinding> scan_sass(const std::string& sass, const std::string& name);

// A cubin: every undefined symbol of its symbol table must be a compiler
// intrinsic the driver provides (__assertfail; the reserved-shared-memory
// markers). Everything else the device code calls lives outside the module.
std::vector<GuardFinding> scan_cubin(const std::string& bytes, const std::string& name);

// A CPU candidate's shared object: its dynamic imports against the functions a
// single-threaded numeric kernel has use for (memory, math, the C++ runtime's
// allocation and exception support); code run at load or unload (.init_array
// and .fini_array entries beyond the C runtime's own); thread-local storage;
// and imports that are state in themselves (__cxa_guard_acquire: a
// function-local static initialised at run time; __tls_get_addr).
std::vector<GuardFinding> scan_shared_object(const std::string& bytes, const std::string& name);

// objdump -d output of a shared object: instructions that read a timer
// (rdtsc, rdtscp, rdpmc) or enter the kernel (syscall, sysenter, int $0x80),
// however the source spelled them (a .byte sequence included).
std::vector<GuardFinding> scan_objdump(const std::string& text, const std::string& name);

// The rule an imported or undefined function/variable breaks; "" when it is
// allowed. `cuda`: a cubin's or PTX's name (device side), else a host import.
std::string rule_for_import(const std::string& symbol, bool cuda);
// A C++ symbol demangled ("typeinfo for std::thread::_State"); others as given.
std::string readable_symbol(const std::string& symbol);

}  // namespace ar::guard_detail
