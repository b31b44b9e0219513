// The compiled-code scan on text and bytes shaped like what the tools print
// (the PTX excerpts are nvcc 13.0's own output; the SASS lines follow
// cuobjdump -sass), and the ELF reader on forged files. No compiler needed:
// compiled_cpu_test.cpp and compiled_cuda_test.cpp run the real ones.
#include <elf.h>

#include <cstring>
#include <fstream>

#include "autoresearch/guard/guard.h"
#include "catch.h"
#include "guard/compiled_scan.h"
#include "guard/elf_file.h"
#include "unit/fakes/temp_dir.h"

using ar::GuardFinding;
using namespace ar::guard_detail;

namespace {

const char* kPtxHead = ".version 9.0\n.target sm_90\n.address_size 64\n\n";

std::string rules(const std::vector<GuardFinding>& f) {
  std::string s;
  for (const auto& x : f) s += x.rule + "@" + x.where + " [" + x.excerpt + "]\n";
  return s;
}

bool has(const std::vector<GuardFinding>& f, const std::string& rule, const std::string& where = "") {
  for (const auto& x : f)
    if (x.rule == rule && (where.empty() || x.where == where)) return true;
  return false;
}

bool any_at(const std::vector<GuardFinding>& f, const std::string& where) {
  for (const auto& x : f)
    if (x.where == where) return true;
  return false;
}

}  // namespace

TEST_CASE("PTX: clock and global-timer registers are timers, on the line that reads them") {
  const std::string ptx = std::string(kPtxHead) +                        // 1-4
                          ".visible .entry ar_stage0(\n"                   // 5
                          "\t.param .u64 ar_stage0_param_0\n"              // 6
                          ")\n{\n"                                         // 7-8
                          "\tmov.u64 \t%rd2, %clock64;\n"                  // 9
                          "\tmov.u64 %rd1, %globaltimer;\n"                // 10
                          "\tmov.u32 \t%r1, %clock_hi; // %tid.x\n"        // 11
                          "\tmov.u32 \t%r2, %tid.x;\n"                     // 12
                          "\t// mov.u64 %rd9, %globaltimer_lo;\n"          // 13: a comment only
                          "\tmov.u32 \t%r3, %globaltimer_hi;\n"            // 14
                          "}\n";
  auto f = scan_ptx(ptx, "kernel.ptx");
  INFO(rules(f));
  CHECK(has(f, "timer", "kernel.ptx:9"));
  CHECK(has(f, "timer", "kernel.ptx:10"));
  CHECK(has(f, "timer", "kernel.ptx:11"));
  CHECK(has(f, "timer", "kernel.ptx:14"));
  CHECK_FALSE(has(f, "timer", "kernel.ptx:12"));
  CHECK_FALSE(has(f, "timer", "kernel.ptx:13"));
  CHECK(f.size() == 4);
  CHECK(f[0].excerpt == "mov.u64 \t%rd2, %clock64;");
}

TEST_CASE("PTX: performance counters are timers; environment registers and the grid id tell launches apart") {
  const std::string ptx = std::string(kPtxHead) + "mov.u32 %r1, %pm0;\nmov.u64 %rd1, %pm3_64;\n"
                                                  "mov.u32 %r2, %envreg3;\nmov.u64 %rd2, %gridid;\n"
                                                  "mov.u32 %r3, %nsmid;\nmov.u32 %r4, %smid;\n";
  auto f = scan_ptx(ptx, "k.ptx");
  INFO(rules(f));
  CHECK(has(f, "timer", "k.ptx:5"));
  CHECK(has(f, "timer", "k.ptx:6"));
  CHECK(has(f, "special-register", "k.ptx:7"));
  CHECK(has(f, "special-register", "k.ptx:8"));
  CHECK(f.size() == 4);   // %nsmid and %smid are fine
}

TEST_CASE("PTX: functions the module declares but does not define") {
  const std::string ptx = std::string(kPtxHead) +
                          ".extern .func  (.param .b32 func_retval0) vprintf\n"                         // 5
                          "(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n)\n;\n"  // 6-10
                          ".extern .func  (.param .b64 func_retval0) malloc\n(\n\t.param .b64 p\n)\n;\n"  // 11-15
                          ".extern .func free\n(\n\t.param .b64 free_param_0\n)\n;\n"                     // 16-20
                          ".extern .func  (.param .b64 func_retval0) __cudaCDP2GetParameterBuffer\n"      // 21
                          "(\n\t.param .b64 a,\n\t.param .b64 b\n)\n;\n"                                 // 22-26
                          ".extern .func  (.param .b32 func_retval0) __cudaCDP2LaunchDevice\n"            // 27
                          "(\n\t.param .b64 a\n)\n;\n"                                                   // 28-31
                          ".extern .func __assertfail\n(\n\t.param .b64 m\n)\n;\n"                        // 32-36
                          ".extern .shared .align 16 .b8 smem[];\n"                                      // 37
                          ".extern .global .align 4 .u32 g_elsewhere;\n"                                 // 38
                          ".extern .func  (.param .b32 func_retval0) cudaStreamCreateWithFlags\n(\n)\n;\n";  // 39
  auto f = scan_ptx(ptx, "kernel.ptx");
  INFO(rules(f));
  CHECK(has(f, "io", "kernel.ptx:5"));                  // printf
  CHECK(has(f, "static-cache", "kernel.ptx:11"));       // the device heap outlives the launch
  CHECK(has(f, "static-cache", "kernel.ptx:16"));
  CHECK(has(f, "stream-graph", "kernel.ptx:21"));       // dynamic parallelism
  CHECK(has(f, "stream-graph", "kernel.ptx:27"));
  CHECK_FALSE(any_at(f, "kernel.ptx:32"));             // assert is allowed
  CHECK_FALSE(any_at(f, "kernel.ptx:37"));             // dynamic shared memory is allowed
  CHECK(has(f, "static-cache", "kernel.ptx:38"));       // state defined outside the module
  CHECK(has(f, "stream-graph", "kernel.ptx:39"));
  CHECK(f.size() == 7);
  for (const auto& x : f) CHECK(x.excerpt.find("__assertfail") == std::string::npos);
}

TEST_CASE("PTX: an honest kernel has no findings") {
  const std::string ptx = std::string(kPtxHead) +
                          ".extern .func __assertfail\n(\n\t.param .b64 __assertfail_param_0\n)\n;\n"
                          ".global .align 4 .b8 kTable[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};\n"
                          ".extern .shared .align 16 .b8 smem[];\n"
                          ".visible .entry ar_stage0(\n\t.param .u64 p0\n)\n{\n"
                          "\t.reg .b32 %r<9>;\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n"
                          "\tmov.u32 %r3, %laneid;\n\tbar.sync 0;\n\tld.global.nc.u32 %r8, [kTable];\n"
                          "\t// %clock64 in a comment, /* and %globaltimer */ in another\n"
                          "\t/* a block comment\n\t   with %gridid on its second line */\n"
                          "\tret;\n}\n";
  auto f = scan_ptx(ptx, "kernel.ptx");
  INFO(rules(f));
  CHECK(f.empty());
}

TEST_CASE("SASS: clock and global-timer reads in any of their instruction forms") {
  const std::string sass =
      "\n\tcode for sm_90\n"                                                                         // 1-2
      "\t\tFunction : ar_stage0\n"                                                                   // 3
      "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90\"\n"            // 4
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;         /* 0x00000a00ff017b82 */\n"  // 5
      "        /*0010*/                   S2R R0, SR_TID.X ;             /* 0x0000000000007919 */\n"  // 6
      "        /*0020*/                   CS2R R2, SR_CLOCKLO ;          /* 0x0000000000027805 */\n"  // 7
      "        /*0030*/              @P0  S2UR UR4, SR_GLOBALTIMERLO ;  /* 0x00000000000479c3 */\n"  // 8
      "        /*0040*/                   S2R R5, SR_CLOCKHI ;\n"                                      // 9
      "        /*0050*/                   S2R R6, SR_GLOBALTIMERHI ;\n"                                // 10
      "        /*0060*/                   S2R R7, SR_LANEID ;\n"                                       // 11
      "\t\tFunction : ar_plan\n"                                                                     // 12
      "        /*0000*/                   S2R R8, SR_PM0 ;\n"                                          // 13
      "        /*0010*/                   EXIT ;\n";
  auto f = scan_sass(sass, "kernel.sass");
  INFO(rules(f));
  REQUIRE(f.size() == 5);
  CHECK(f[0].where == "kernel.sass:7");
  CHECK(f[0].excerpt == "ar_stage0: CS2R R2, SR_CLOCKLO");
  CHECK(f[1].where == "kernel.sass:8");
  CHECK(f[2].where == "kernel.sass:9");
  CHECK(f[3].where == "kernel.sass:10");
  CHECK(f[4].excerpt.rfind("ar_plan:", 0) == 0);
  for (const auto& x : f) CHECK(x.rule == "timer");
}

TEST_CASE("objdump: timer and system-call instructions, however the source spelled them") {
  const std::string text =
      "\nkernel.so:     file format elf64-x86-64\n\n\nDisassembly of section .text:\n\n"  // 1-6
      "0000000000001100 <ar_kernel>:\n"                                                 // 7
      "    1100:\tpush   %rbp\n"                                                        // 8
      "    1101:\trdtsc\n"                                                              // 9
      "    1103:\t0f 01 f9             \trdtscp\n"                                      // 10
      "    1106:\tsyscall\n"                                                            // 11
      "    1108:\tint    $0x80\n"                                                       // 12
      "    110a:\tint3\n"                                                               // 13
      "    110b:\tvfmadd231ps %zmm1,%zmm2,%zmm3\n"                                      // 14
      "    1111:\tcall   1030 <rdtsc_like@plt>\n"                                       // 15
      "    1116:\trdpmc\n";                                                             // 16
  auto f = scan_objdump(text, "kernel.dis");
  INFO(rules(f));
  REQUIRE(f.size() == 5);
  CHECK((f[0].rule == "timer" && f[0].where == "kernel.dis:9" && f[0].excerpt == "ar_kernel: rdtsc"));
  CHECK((f[1].rule == "timer" && f[1].where == "kernel.dis:10"));
  CHECK((f[2].rule == "io" && f[2].where == "kernel.dis:11"));
  CHECK((f[3].rule == "io" && f[3].where == "kernel.dis:12"));
  CHECK((f[4].rule == "timer" && f[4].where == "kernel.dis:16"));
}

TEST_CASE("imports: what a numeric kernel may call, and the rule everything else breaks") {
  // Allowed on the host: memory, math, the C++ runtime.
  for (const char* ok : {"memcpy", "memset", "sqrtf", "expf", "exp", "__expf_finite", "_ZGVdN8v_expf", "fmaf",
                         "malloc", "free", "_Znwm", "_ZdlPvm", "_ZnwmSt11align_val_t", "__cxa_throw",
                         "_ZSt20__throw_length_errorPKc", "_ZSt28__throw_bad_array_new_lengthv", "__stack_chk_fail",
                         "__cxa_finalize", "__gmon_start__", "_Unwind_Resume", "__truncsfhf2"})
    CHECK(rule_for_import(ok, false) == "");
  CHECK(rule_for_import("pthread_create", false) == "host-thread");
  CHECK(rule_for_import("_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE", false) ==
        "host-thread");
  CHECK(rule_for_import("GOMP_parallel", false) == "host-thread");
  CHECK(rule_for_import("clock_gettime", false) == "timer");
  CHECK(rule_for_import("_ZNSt6chrono3_V212steady_clock3nowEv", false) == "timer");
  CHECK(rule_for_import("fopen", false) == "io");
  CHECK(rule_for_import("getenv", false) == "io");
  CHECK(rule_for_import("socket", false) == "io");
  CHECK(rule_for_import("dlsym", false) == "io");
  CHECK(rule_for_import("dl_iterate_phdr", false) == "io");
  CHECK(rule_for_import("_r_debug", false) == "io");
  CHECK(rule_for_import("puts", false) == "io");
  CHECK(rule_for_import("__cxa_guard_acquire", false) == "static-cache");
  CHECK(rule_for_import("__tls_get_addr", false) == "static-cache");
  CHECK(rule_for_import("__cxa_atexit", false) == "static-cache");
  CHECK(rule_for_import("rand", false) == "import");
  CHECK(rule_for_import("qsort", false) == "import");
  // On the device only assert and the compiler's shared-memory markers are allowed.
  CHECK(rule_for_import("__assertfail", true) == "");
  CHECK(rule_for_import(".nv.reservedSmem.offset0", true) == "");
  CHECK(rule_for_import("vprintf", true) == "io");
  CHECK(rule_for_import("malloc", true) == "static-cache");
  CHECK(rule_for_import("__nv_aligned_device_malloc", true) == "static-cache");
  CHECK(rule_for_import("__cudaCDP2LaunchDevice", true) == "stream-graph");
  CHECK(rule_for_import("cudaLaunchDeviceV2", true) == "stream-graph");
  CHECK(rule_for_import("cudaGetParameterBufferV2", true) == "stream-graph");
  CHECK(rule_for_import("cudaGraphLaunch", true) == "stream-graph");
  CHECK(rule_for_import("cudaGetDevice", true) == "cuda-runtime");
  CHECK(rule_for_import("my_helper", true) == "import");
}

namespace {

// A minimal ELF64 file: header, optional section headers, a .shstrtab.
std::string tiny_elf(uint16_t machine, uint16_t type) {
  const char names[] = "\0.shstrtab\0.symtab\0.strtab\0";
  const char strtab[] = "\0vprintf\0ar_stage0\0";
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = type;
  eh.e_machine = machine;
  eh.e_ehsize = sizeof eh;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  Elf64_Sym syms[3]{};
  syms[1].st_name = 1;  // vprintf, undefined
  syms[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
  syms[2].st_name = 9;  // ar_stage0, defined
  syms[2].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
  syms[2].st_shndx = 1;
  std::string body(reinterpret_cast<const char*>(&eh), sizeof eh);
  const uint64_t names_at = body.size();
  body.append(names, sizeof names);
  const uint64_t strtab_at = body.size();
  body.append(strtab, sizeof strtab);
  while (body.size() % 8) body.push_back('\0');
  const uint64_t syms_at = body.size();
  body.append(reinterpret_cast<const char*>(syms), sizeof syms);
  Elf64_Shdr sh[4]{};
  sh[1] = {1, SHT_STRTAB, 0, 0, names_at, sizeof names, 0, 0, 1, 0};
  sh[2] = {11, SHT_SYMTAB, 0, 0, syms_at, sizeof syms, 3, 1, 8, sizeof(Elf64_Sym)};
  sh[3] = {19, SHT_STRTAB, 0, 0, strtab_at, sizeof strtab, 0, 0, 1, 0};
  const uint64_t sh_at = body.size();
  body.append(reinterpret_cast<const char*>(sh), sizeof sh);
  auto* h = reinterpret_cast<Elf64_Ehdr*>(body.data());
  h->e_shoff = sh_at;
  h->e_shnum = 4;
  h->e_shstrndx = 1;
  return body;
}

Elf64_Shdr* section_header(std::string& elf, int i) {
  auto* h = reinterpret_cast<Elf64_Ehdr*>(elf.data());
  return reinterpret_cast<Elf64_Shdr*>(elf.data() + h->e_shoff) + i;
}

}  // namespace

TEST_CASE("the ELF reader reads a well-formed file and the cubin scan finds its undefined function") {
  std::string bytes = tiny_elf(190, ET_EXEC);
  std::string error;
  auto elf = ElfFile::parse(bytes, &error);
  INFO(error);
  REQUIRE(elf);
  CHECK(elf->machine() == 190);
  REQUIRE(elf->section(".symtab"));
  auto syms = elf->symbols(*elf->section(".symtab"), &error);
  REQUIRE(syms.size() == 3);
  CHECK(syms[1].name == "vprintf");
  CHECK(syms[1].undefined());
  CHECK_FALSE(syms[2].undefined());
  auto f = scan_cubin(bytes, "kernel.cubin");
  INFO(rules(f));
  REQUIRE(f.size() == 1);
  CHECK(f[0].rule == "io");
  CHECK(f[0].excerpt == "undefined symbol vprintf");
  // Not a cubin: refused, not misread.
  CHECK(scan_cubin(tiny_elf(EM_X86_64, ET_EXEC), "x").at(0).rule == "compiled-input");
}

TEST_CASE("the ELF reader refuses truncated and forged files with a message, never reading out of bounds") {
  std::string error;
  CHECK_FALSE(ElfFile::parse("", &error));
  CHECK(error == "not an ELF file");
  CHECK_FALSE(ElfFile::parse("\x7f" "ELF", &error));
  std::string good = tiny_elf(190, ET_EXEC);

  std::string b = good;
  b[EI_CLASS] = ELFCLASS32;
  CHECK_FALSE(ElfFile::parse(b, &error));
  CHECK(error.find("64-bit") != std::string::npos);

  b = good.substr(0, good.size() - 10);   // section headers cut off
  CHECK_FALSE(ElfFile::parse(b, &error));
  CHECK(error.find("extend past the end") != std::string::npos);

  b = good;
  reinterpret_cast<Elf64_Ehdr*>(b.data())->e_shoff = ~uint64_t{0} - 8;   // offset overflow
  CHECK_FALSE(ElfFile::parse(b, &error));

  b = good;
  reinterpret_cast<Elf64_Ehdr*>(b.data())->e_shnum = 0xffff;
  CHECK_FALSE(ElfFile::parse(b, &error));

  b = good;
  section_header(b, 2)->sh_size = 1u << 30;   // the symbol table runs past the file
  CHECK_FALSE(ElfFile::parse(b, &error));
  CHECK(error.find("section 2") != std::string::npos);

  b = good;
  section_header(b, 1)->sh_type = SHT_PROGBITS;   // the name table is not a string table
  CHECK_FALSE(ElfFile::parse(b, &error));

  b = good;
  section_header(b, 3)->sh_name = 5000;   // a name outside the name table
  CHECK_FALSE(ElfFile::parse(b, &error));

  b = good;
  section_header(b, 2)->sh_entsize = 4;   // symbols smaller than a symbol
  auto elf = ElfFile::parse(b, &error);
  REQUIRE(elf);
  error.clear();
  CHECK(elf->symbols(*elf->section(".symtab"), &error).empty());
  CHECK_FALSE(error.empty());
  CHECK(scan_cubin(b, "k.cubin").at(0).rule == "compiled-input");

  b = good;
  section_header(b, 2)->sh_link = 9;   // names no string table
  CHECK(scan_cubin(b, "k.cubin").at(0).rule == "compiled-input");

  b = good;   // a symbol name past the end of its string table
  {
    auto* sh = section_header(b, 2);
    auto* sym = reinterpret_cast<Elf64_Sym*>(b.data() + sh->sh_offset) + 1;
    sym->st_name = 999;
  }
  CHECK(scan_cubin(b, "k.cubin").at(0).rule == "compiled-input");

  // Every prefix of a valid file parses or fails cleanly.
  for (size_t n = 0; n < good.size(); ++n) {
    auto e = ElfFile::parse(good.substr(0, n), &error);
    if (e && e->section(".symtab")) e->symbols(*e->section(".symtab"), &error);
  }
}

TEST_CASE("scan_compiled_code reads the files, names them, and leaves a non-ELF artifact to the harness") {
  ar::TempDir dir;
  std::ofstream(dir / "kernel.ptx") << kPtxHead << "mov.u64 %rd1, %globaltimer;\n";
  std::ofstream(dir / "kernel.sass") << "Function : ar_stage0\n /*0020*/ CS2R R2, SR_CLOCKLO ;\n";
  std::ofstream(dir / "kernel.cubin", std::ios::binary) << tiny_elf(190, ET_EXEC);
  ar::CompiledCode code{dir / "kernel.cubin", dir / "kernel.ptx", dir / "kernel.sass"};
  auto r = ar::scan_compiled_code(code, ar::Backend::Cuda);
  INFO(rules(r.findings));
  CHECK_FALSE(r.pass);
  REQUIRE(r.findings.size() == 3);
  CHECK(r.findings[0].where == "kernel.ptx:5");
  CHECK(r.reason() == "guard: kernel.ptx:5 uses a timer (mov.u64 %rd1, %globaltimer;) and 2 more");

  // A fake compiler's text "artifact" cannot be loaded anyway: no finding for it.
  std::ofstream(dir / "fake.so") << "c++ -shared -DX=1 kernel.cpp -o fake.so";
  CHECK(ar::scan_compiled_code({dir / "fake.so", {}, {}}, ar::Backend::Cpu).pass);
  // A missing file is a finding: the scan never passes what it could not read.
  auto missing = ar::scan_compiled_code({dir / "none.so", {}, {}}, ar::Backend::Cpu);
  CHECK_FALSE(missing.pass);
  CHECK(missing.findings.at(0).rule == "compiled-input");
}
