/* The Intel TM ABI as GCC (-fgnu-tm) uses it: types, bit values and enumerations.
 * Values are fixed by the ABI and by GCC's trans-mem.h; names follow the ABI document. */
#ifndef TMKIT_ITM_ABI_H
#define TMKIT_ITM_ABI_H

#include <stddef.h>
#include <stdint.h>

#define TM_EXPORT __attribute__((visibility("default")))

/* Property bits: first argument of _ITM_beginTransaction. */
enum {
    pr_instrumentedCode = 0x0001,
    pr_uninstrumentedCode = 0x0002,
    pr_hasNoXMMUpdate = 0x0004,
    pr_hasNoAbort = 0x0008, /* no __transaction_cancel anywhere inside */
    pr_hasNoIrrevocable = 0x0020,
    pr_doesGoIrrevocable = 0x0040, /* always goes irrevocable: start serial */
    pr_hasNoSimpleReads = 0x0080,
    pr_aWBarriersOmitted = 0x0100,
    pr_RaRBarriersOmitted = 0x0200,
    pr_undoLogCode = 0x0400,
    pr_preferUninstrumented = 0x0800,
    pr_exceptionBlock = 0x1000,
    pr_hasElse = 0x2000,
    pr_readOnly = 0x4000, /* set by GCC from the instrumented path only: not trusted */
};

/* Action bits: result of _ITM_beginTransaction. */
enum {
    a_runInstrumentedCode = 0x01,
    a_runUninstrumentedCode = 0x02,
    a_saveLiveVariables = 0x04,
    a_restoreLiveVariables = 0x08,
    a_abortTransaction = 0x10,
};

/* Reasons given to _ITM_abortTransaction. */
typedef enum {
    userAbort = 1,
    userRetry = 2,
    TMConflict = 4,
    exceptionBlockAbort = 8,
    outerAbort = 16,
} _ITM_abortReason;

typedef enum {
    outsideTransaction = 0,
    inRetryableTransaction = 1,
    inIrrevocableTransaction = 2,
} _ITM_howExecuting;

typedef enum { modeSerialIrrevocable = 0 } _ITM_transactionState;

typedef uint32_t _ITM_transactionId_t;
#define TM_NO_TRANSACTION_ID 1u

typedef void (*_ITM_userUndoFunction)(void *);
typedef void (*_ITM_userCommitFunction)(void *);

typedef struct {
    int32_t reserved_1;
    int32_t flags;
    int32_t reserved_2;
    int32_t reserved_3;
    const char *psource;
} _ITM_srcLocation;

#define TM_ABI_VERSION_STRING "0.90"
#define TM_ABI_VERSION_NUMBER 90

#endif
