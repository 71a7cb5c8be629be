/* tmkit/libc_printf.h — snprintf's conversions in the transaction-safe libc (tmkit/libc.h
 * explains the scheme; the format walk and the wrappers are in tmkit/libc_fmt.h). The integer,
 * string, char, pointer and %% conversions are formatted here, with glibc's exact output; a %s
 * argument is read through the transaction. Floating point, the ' flag (the locale's digit
 * grouping) and %lc are pure computations on a value that glibc formats into a local buffer;
 * the padding to the width is ours. The output goes into the transaction through tmkit__wr,
 * and nothing here is sized by the width or the precision: padding is emitted in a loop, and
 * once the caller's buffer is full it is only counted. */
#ifndef TMKIT__LIBC_PARTS
/* A part of tmkit/libc.h, which includes it where it belongs (and defines TMKIT__LIBC_PARTS
 * first): included directly, it brings in the whole of tmkit/libc.h. */
#include "libc.h"
#elif !defined(TMKIT_LIBC_PRINTF_H)
#define TMKIT_LIBC_PRINTF_H

typedef struct {
    tmkit__wr w;
    size_t room;  /* bytes snprintf may still store, the NUL included */
    size_t total; /* bytes the whole output would have */
} tmkit__out;

/* The output of n bytes: from p (0: from tx, read through the transaction; neither: the byte
 * c, n times). Only what fits is stored; the total counts all of it. */
TMKIT_PURE void tmkit__out_n(tmkit__out *o, const char *p, const char *tx, char c, size_t n)
{
    if (!n)
        return;
    size_t k = o->room > 1 ? o->room - 1 : 0;
    if (k > n)
        k = n;
    o->room -= k;
    o->total += n;
    while (k) {
        if (o->w.n == sizeof o->w.buf)
            tmkit__flush(&o->w);
        size_t m = sizeof o->w.buf - o->w.n;
        m = m < k ? m : k;
        if (p)
            memcpy(o->w.buf + o->w.n, p, m), p += m;
        else if (tx)
            tmkit__read_block(o->w.buf + o->w.n, tx, m), tx += m;
        else
            memset(o->w.buf + o->w.n, c, m);
        o->w.n += m;
        k -= m;
    }
}
#define tmkit__emit(o, p, n) tmkit__out_n(o, p, NULL, 0, n)
#define tmkit__pad(o, c, n) tmkit__out_n(o, NULL, NULL, c, n)

/* One conversion's flags, width and precision (-1: none), with any * already taken. */
enum { TMKIT__LEFT = 1, TMKIT__PLUS = 2, TMKIT__SPACE = 4, TMKIT__ALT = 8, TMKIT__ZERO = 16,
       TMKIT__GROUP = 32 };
typedef struct {
    unsigned flags;
    size_t width;
    int prec;
} tmkit__spec;

/* len bytes (at p, or in the transaction at tx) in a field of the width: %s %c %p(nil). */
TMKIT_PURE void tmkit__field(tmkit__out *o, const tmkit__spec *sp, const char *p, const char *tx,
                             size_t len)
{
    size_t pad = sp->width > len ? sp->width - len : 0;
    if (!(sp->flags & TMKIT__LEFT))
        tmkit__pad(o, ' ', pad);
    tmkit__out_n(o, p, tx, 0, len);
    if (sp->flags & TMKIT__LEFT)
        tmkit__pad(o, ' ', pad);
}

/* An integer: sign (0: none), then v in base 10, 8 or 16 (conv d i u o x X), as C and glibc
 * say: the precision is the least number of digits (none for 0 at precision 0, but %#o always
 * starts with a 0), # puts 0x before a nonzero hex value, the 0 flag pads with zeros after the
 * sign and 0x unless there is a precision or the - flag. */
TMKIT_PURE void tmkit__int(tmkit__out *o, const tmkit__spec *sp, unsigned long long v, char sign,
                           char conv)
{
    char d[28], *end = d + sizeof d, *p = end; /* 22 octal digits, 0x, sign */
    const char *xd = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    int alt = (sp->flags & TMKIT__ALT) != 0, hex = conv == 'x' || conv == 'X';
    size_t nprefix = alt && hex && v ? 2 : 0; /* 0x or 0X */
    if (conv == 'o')
        for (; v; v >>= 3)
            *--p = (char)('0' + (v & 7));
    else if (hex)
        for (; v; v >>= 4)
            *--p = xd[v & 15];
    else
        for (; v; v /= 10)
            *--p = (char)('0' + v % 10);
    size_t nd = (size_t)(end - p), prec = sp->prec < 0 ? 1 : (size_t)sp->prec;
    size_t zeros = prec > nd ? prec - nd : 0;
    if (conv == 'o' && alt && !zeros)
        zeros = 1; /* the digits never start with 0: add one */
    size_t body = (sign != 0) + nprefix + zeros + nd;
    if ((sp->flags & (TMKIT__ZERO | TMKIT__LEFT)) == TMKIT__ZERO && sp->prec < 0 &&
        sp->width > body) {
        zeros += sp->width - body;
        body = sp->width;
    }
    /* sign and 0x go in front of the digits, or of the zeros: text[0..nhead) */
    char head[3], *text = p;
    size_t nhead = 0;
    if (sign)
        head[nhead++] = sign;
    if (nprefix)
        head[nhead++] = '0', head[nhead++] = conv;
    if (!zeros) { /* the common case: one piece */
        text = p - nhead;
        memcpy(text, head, nhead);
    }
    size_t pad = sp->width > body ? sp->width - body : 0;
    if (!(sp->flags & TMKIT__LEFT))
        tmkit__pad(o, ' ', pad);
    if (zeros) {
        tmkit__emit(o, head, nhead);
        tmkit__pad(o, '0', zeros);
    }
    tmkit__emit(o, text, (size_t)(end - text));
    if (sp->flags & TMKIT__LEFT)
        tmkit__pad(o, ' ', pad);
}

/* ---- the conversions glibc formats: one value, no shared memory ---- */

typedef enum { TMKIT__DOUBLE, TMKIT__LDOUBLE, TMKIT__LLONG, TMKIT__WINT } tmkit__kind;
typedef union {
    double d;
    long double ld;
    long long ll;
    unsigned int wc;
} tmkit__val;

TMKIT_PURE int tmkit__glibc_one(char *b, size_t cap, const char *spec, tmkit__kind k,
                                const tmkit__val *v)
{
    if (k == TMKIT__DOUBLE)
        return snprintf(b, cap, spec, v->d);
    if (k == TMKIT__LDOUBLE)
        return snprintf(b, cap, spec, v->ld);
    if (k == TMKIT__LLONG)
        return snprintf(b, cap, spec, v->ll);
    return snprintf(b, cap, spec, v->wc);
}

/* conv with the length modifier mod ("L", "ll", "l" or "") and the flags and precision of sp,
 * formatted by glibc without the width; then padded here: with zeros after the sign (and the
 * 0x of %a) when the 0 flag applies and the text is a number, else with spaces. 0, or -1 with
 * errno set (glibc's error, or no memory for a text longer than the local buffer). */
TMKIT_PURE int tmkit__glibc(tmkit__out *o, const tmkit__spec *sp, char conv, const char *mod,
                            tmkit__kind k, tmkit__val v)
{
    char spec[32], small[128], *t = small;
    size_t n = 0;
    spec[n++] = '%';
    static const unsigned flag[4] = {TMKIT__PLUS, TMKIT__SPACE, TMKIT__ALT, TMKIT__GROUP};
    for (int i = 0; i < 4; i++)
        if (sp->flags & flag[i])
            spec[n++] = "+ #'"[i];
    if (sp->prec >= 0) {
        char digits[12], *q = digits + sizeof digits;
        for (int p = sp->prec; q == digits + sizeof digits || p; p /= 10)
            *--q = (char)('0' + p % 10);
        spec[n++] = '.';
        while (q < digits + sizeof digits)
            spec[n++] = *q++;
    }
    while (*mod)
        spec[n++] = *mod++;
    spec[n++] = conv;
    spec[n] = 0;
    int saved = tmkit__errno_begin();
    int len = tmkit__glibc_one(small, sizeof small, spec, k, &v);
    tmkit__errno_end(saved); /* EILSEQ from %lc: through the transaction */
    if (len < 0)
        return -1;
    if ((size_t)len >= sizeof small) { /* long: %.500f, %f of 1e300, %'.300d */
        /* the transaction's malloc: freed if it aborts while the text is emitted */
        if (!(t = (char *)_ITM_malloc((size_t)len + 1)))
            return tmkit__set_errno(ENOMEM), -1;
        tmkit__glibc_one(t, (size_t)len + 1, spec, k, &v);
    }
    size_t z = 0, pad = sp->width > (size_t)len ? sp->width - (size_t)len : 0;
    int zero = (sp->flags & (TMKIT__ZERO | TMKIT__LEFT)) == TMKIT__ZERO && k != TMKIT__WINT &&
               !(k == TMKIT__LLONG && sp->prec >= 0);
    if (zero) {
        z = t[0] == '-' || t[0] == '+' || t[0] == ' ';
        if ((conv | 32) == 'a' && t[z] == '0' && (t[z + 1] | 32) == 'x')
            z += 2;
        zero = (t[z] | 32) != 'i' && (t[z] | 32) != 'n'; /* not inf or nan */
    }
    if (zero) {
        tmkit__emit(o, t, z);
        tmkit__pad(o, '0', pad);
        tmkit__emit(o, t + z, (size_t)len - z);
    } else {
        tmkit__field(o, sp, t, NULL, (size_t)len);
    }
    if (t != small)
        _ITM_free(t);
    return 0;
}

#endif
