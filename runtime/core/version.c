/* The library's version, visible three ways: the soname (libitm.so.1, the ABI GCC's programs
 * need), the file name's version (libitm.so.1.0.0) and this string, exported as tmkit_version
 * (unversioned, as all tmkit_* names: abi/libitm.map). `tmkit --version` reads it from the
 * library it would run, so the line it prints describes that file, not the command. TMKIT_VERSION_STRING comes from the build
 * (runtime/CMakeLists.txt): "tmkit VERSION (ARCH, COMPILER VERSION, BUILD TYPE)". */
#include "itm_abi.h"

TM_EXPORT const char tmkit_version[] = TMKIT_VERSION_STRING;
