/*
 * bcryptprimitives.dll for Wine 8, which has none: Rust's standard library
 * (1.78 and later) imports ProcessPrng from it on Windows for its random
 * numbers (HashMap seeds, temp file names), so without it no Rust program
 * starts under Wine 8. Real Windows (10 and later) ships the DLL; this one
 * serves ProcessPrng from RtlGenRandom (SystemFunction036 in advapi32),
 * which Wine has. Built by .ci/windows with x86_64-w64-mingw32-gcc and put
 * into the Wine prefix's system32, where every process finds it.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    /* RtlGenRandom takes a ULONG: feed it in chunks. */
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
