/* _ITM_getTransactionId() inside the very first transactions of a process: no transaction may
 * get the id 1, which is _ITM_noTransactionId (the value returned outside transactions), and each
 * successive transaction gets a new id.
 * The system libitm starts counting at 0, so the second transaction of the first thread that
 * runs one gets id 1. */
// TMTEST: libitm=skip:libitm gives the second transaction of the process the id 1 (= _ITM_noTransactionId)
#include "harness.h"

static int g;

TH_PURE static void rec(_ITM_transactionId_t *id) { *id = _ITM_getTransactionId(); }

int main(void)
{
    th_check_runtime();
    _ITM_transactionId_t id[8];
    CHECK_EQ(_ITM_getTransactionId(), TH_NO_TRANSACTION_ID);
    for (int i = 0; i < 8; i++) {
        __transaction_atomic {
            g = i;
            rec(&id[i]);
        }
        TH_FORGET_MEMORY();
        CHECK_EQ(_ITM_getTransactionId(), TH_NO_TRANSACTION_ID);
    }
    for (int i = 0; i < 8; i++) {
        if (id[i] == TH_NO_TRANSACTION_ID)
            fprintf(stderr, "transaction %d of the process got id %u\n", i + 1, id[i]);
        CHECK(id[i] != TH_NO_TRANSACTION_ID);
        for (int j = 0; j < i; j++)
            CHECK(id[i] != id[j]);
    }
    CHECK_EQ(g, 7);
    return 0;
}
