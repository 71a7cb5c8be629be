/* A byte-counting loop in a transaction_safe function becomes a plain strlen call at -O2 (GCC 12's
 * loop distribution also knows the strlen idiom; found in a transactional memcached port, whose
 * tm_strlen and stats code it broke under redo-log algorithms). The transaction first shortens
 * or lengthens the string through barriers; the count must see that. tmkit takes the program's
 * strlen inside transactions into the transaction (abi/interpose.c). */
#include "harness.h"

static char buf[64] = "abcdefghijklmnopqrstuvwxyz";

__attribute__((transaction_safe, noinline)) size_t count_chars(const char *s)
{
    size_t n = 0;
    while (s[n]) /* becomes strlen(s) */
        n++;
    return n;
}

int main(void)
{
    th_check_runtime();
    for (int cut = 0; cut < 26; cut++) {
        size_t n, m;
        __transaction_atomic {
            buf[cut] = 0;
            n = count_chars(buf);
            buf[cut] = 'a' + cut; /* and back: the full length again */
            m = count_chars(buf + cut / 2);
        }
        CHECK_EQ(n, cut);
        CHECK_EQ(m, 26 - cut / 2);
    }
    /* a string the transaction writes into fresh, longer than before */
    size_t n = 0;
    __transaction_atomic {
        for (int i = 26; i < 60; i++)
            buf[i] = (char)('0' + i % 10);
        buf[60] = 0;
        n = count_chars(buf);
    }
    CHECK_EQ(n, 60);
    puts("ok");
    return 0;
}
