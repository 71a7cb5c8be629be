/* tmkit/libc_fmt.h — the number and formatting parts of the transaction-safe libc (included
 * by tmkit/libc.h, which explains the scheme; snprintf's conversions: tmkit/libc_printf.h;
 * sorting and ctype: tmkit/libc_sort.h). */
#ifndef TMKIT__LIBC_PARTS
/* A part of tmkit/libc.h, which includes it where it belongs (and defines TMKIT__LIBC_PARTS
 * first): included directly, it brings in the whole of tmkit/libc.h. */
#include "libc.h"
#elif !defined(TMKIT_LIBC_FMT_H)
#define TMKIT_LIBC_FMT_H

/* ---- numbers: the number's text is copied out of the transaction, glibc parses the copy ---- */

/* Copies the prefix of s that strtol & co. can consume (white space, sign, base prefix, digits
 * and letters) into buf, NUL-terminated; 0 if it did not fit (then the caller goes irrevocable,
 * a number of thousands of characters being no use to anybody). */
TMKIT_PURE size_t tmkit__numtext(const char *s, char *buf, size_t cap)
{
    tmkit__rd r = TMKIT_RD;
    size_t n = 0;
    for (;; n++) {
        unsigned char c = tmkit__at(&r, s + n);
        int ok = c == ' ' || (c >= '\t' && c <= '\r') || c == '+' || c == '-' ||
                 (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
        if (!ok)
            break;
        if (n + 1 == cap)
            return 0;
        buf[n] = (char)c;
    }
    buf[n] = 0;
    return n + 1;
}

#define TMKIT__STRTO(name, type, fn)                                                        \
    TMKIT_WRAPPER type tmkit_tx_##name(const char *, char **, int) TMKIT_WRAP(name);            \
    TMKIT_WRAPPER type tmkit_tx_##name(const char *s, char **end, int base)                    \
    {                                                                                       \
        char buf[512], *e;                                                                  \
        if (!tmkit__numtext(s, buf, sizeof buf)) {                                          \
            _ITM_changeTransactionMode(0 /* modeSerialIrrevocable */);                      \
            return fn(s, end, base);                                                        \
        }                                                                                   \
        int saved = tmkit__errno_begin();                                                   \
        type v = fn(buf, &e, base);                                                         \
        tmkit__errno_end(saved); /* ERANGE, EINVAL through the transaction */                \
        if (end)                                                                            \
            *end = TMKIT__UNCONST(char *, s) + (e - buf);                                   \
        return v;                                                                           \
    }
TMKIT__STRTO(strtol, long, strtol)
TMKIT__STRTO(strtoul, unsigned long, strtoul)
TMKIT__STRTO(strtoll, long long, strtoll)
TMKIT__STRTO(strtoull, unsigned long long, strtoull)
#undef TMKIT__STRTO

TMKIT_WRAPPER int tmkit_tx_atoi(const char *) TMKIT_WRAP(atoi);
TMKIT_WRAPPER int tmkit_tx_atoi(const char *s) { return (int)tmkit_tx_strtol(s, NULL, 10); }
TMKIT_WRAPPER long tmkit_tx_atol(const char *) TMKIT_WRAP(atol);
TMKIT_WRAPPER long tmkit_tx_atol(const char *s) { return tmkit_tx_strtol(s, NULL, 10); }
TMKIT_WRAPPER long long tmkit_tx_atoll(const char *) TMKIT_WRAP(atoll);
TMKIT_WRAPPER long long tmkit_tx_atoll(const char *s) { return tmkit_tx_strtoll(s, NULL, 10); }

/* ---- snprintf: the format walked here, each conversion formatted by tmkit/libc_printf.h,
 * the output into the transaction ---- */

/* A number in the format (a width or a precision); -1 past INT_MAX (glibc's EOVERFLOW). */
TMKIT_PURE int tmkit__fmtnum(const char **f)
{
    long v = 0;
    for (; **f >= '0' && **f <= '9'; (*f)++)
        if ((v = v * 10 + (**f - '0')) > INT_MAX)
            return -1;
    return (int)v;
}

/* The formatter: 0; -1 (errno set) on glibc's errors; -2: a conversion it does not take (%n,
 * %m, %ls, positional arguments, widths past INT_MAX), for glibc to do irrevocably. */
TMKIT_PURE int tmkit__vformat(tmkit__out *o, const char *f, va_list ap)
{
    for (;;) {
        const char *q = f;
        while (*q && *q != '%')
            q++;
        tmkit__emit(o, f, (size_t)(q - f));
        if (!*q)
            return 0;
        f = q + 1;
        /* % flags width .precision length conversion, with * taken from the arguments */
        static const char flag_chars[] = "-+ #0'", len_chars[] = "zjtLq";
        tmkit__spec sp = {0, 0, -1};
        for (const char *at; *f && (at = strchr(flag_chars, *f)); f++)
            sp.flags |= 1u << (at - flag_chars); /* TMKIT__LEFT ... TMKIT__GROUP */
        if (*f == '*') {
            int w = va_arg(ap, int);
            if (*++f >= '0' && *f <= '9')
                return -2; /* *1$ */
            if (w < 0) {
                if (w == INT_MIN)
                    return -2;
                sp.flags |= TMKIT__LEFT; /* a negative * width is the - flag */
                w = -w;
            }
            sp.width = (size_t)w;
        } else {
            int w = tmkit__fmtnum(&f);
            if (w < 0 || *f == '$')
                return -2;
            sp.width = (size_t)w;
        }
        if (*f == '.') {
            if (*++f == '*') {
                int p = va_arg(ap, int);
                if (*++f >= '0' && *f <= '9')
                    return -2;
                sp.prec = p < 0 ? -1 : p; /* a negative * precision is none */
            } else if ((sp.prec = tmkit__fmtnum(&f)) < 0) {
                return -2;
            }
        }
        int len = 0; /* 0 none, 1 hh, 2 h, 3 l, 4 ll, 5 z, 6 j, 7 t, 8 L or q */
        if (*f == 'h')
            len = f[1] == 'h' ? (f++, 1) : 2;
        else if (*f == 'l')
            len = f[1] == 'l' ? (f++, 4) : 3;
        else if (*f && strchr(len_chars, *f))
            len = (int)(strchr(len_chars, *f) - len_chars) + 5 - (*f == 'q');
        if (len)
            f++;
        char conv = *f ? *f++ : 0;
        if (sp.flags & TMKIT__PLUS)
            sp.flags &= ~TMKIT__SPACE; /* + overrides space */
        tmkit__val v;
        switch (conv) {
        case 'd': case 'i': {
            long long x;
            switch (len) {
            case 1: x = (signed char)va_arg(ap, int); break;
            case 2: x = (short)va_arg(ap, int); break;
            case 3: x = va_arg(ap, long); break;
            case 4: case 8: x = va_arg(ap, long long); break;
            case 5: x = va_arg(ap, ptrdiff_t); break; /* ssize_t, which is POSIX only */
            case 6: x = va_arg(ap, intmax_t); break;
            case 7: x = va_arg(ap, ptrdiff_t); break;
            default: x = va_arg(ap, int);
            }
            if (sp.flags & TMKIT__GROUP) {
                v.ll = x;
                if (tmkit__glibc(o, &sp, conv, "ll", TMKIT__LLONG, v))
                    return -1;
                break;
            }
            char sign = x < 0 ? '-' : sp.flags & TMKIT__PLUS ? '+' : sp.flags & TMKIT__SPACE ? ' ' : 0;
            tmkit__int(o, &sp, x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x, sign, 'd');
            break;
        }
        case 'u': case 'o': case 'x': case 'X': {
            unsigned long long x;
            switch (len) {
            case 1: x = (unsigned char)va_arg(ap, unsigned); break;
            case 2: x = (unsigned short)va_arg(ap, unsigned); break;
            case 3: x = va_arg(ap, unsigned long); break;
            case 4: case 8: x = va_arg(ap, unsigned long long); break;
            case 5: x = va_arg(ap, size_t); break;
            case 6: x = va_arg(ap, uintmax_t); break;
            case 7: x = (unsigned long long)va_arg(ap, ptrdiff_t); break;
            default: x = va_arg(ap, unsigned);
            }
            if (conv == 'u' && (sp.flags & TMKIT__GROUP)) {
                v.ll = (long long)x;
                if (tmkit__glibc(o, &sp, conv, "ll", TMKIT__LLONG, v))
                    return -1;
                break;
            }
            tmkit__int(o, &sp, x, 0, conv); /* no sign: + and space do nothing */
            break;
        }
        case 'p': {
            const void *p = va_arg(ap, const void *);
            if (!p) {
                tmkit__field(o, &sp, "(nil)", NULL, 5);
                break;
            }
            sp.flags |= TMKIT__ALT; /* like %#lx, but + and space apply (glibc) */
            tmkit__int(o, &sp, (uintptr_t)p, sp.flags & TMKIT__PLUS ? '+' : sp.flags & TMKIT__SPACE ? ' ' : 0, 'x');
            break;
        }
        case 'c':
            if (len == 3) { /* %lc: the locale's multibyte character */
                v.wc = va_arg(ap, unsigned);
                if (tmkit__glibc(o, &sp, conv, "l", TMKIT__WINT, v))
                    return -1;
                break;
            }
            {
                char c = (char)va_arg(ap, int);
                tmkit__field(o, &sp, &c, NULL, 1);
            }
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (len == 3)
                return -2; /* %ls: wide strings are not taken */
            if (!s) /* glibc: "(null)" if the precision lets all of it through, else nothing */
                tmkit__field(o, &sp, "(null)", NULL, sp.prec < 0 || sp.prec >= 6 ? 6 : 0);
            else /* read through the transaction: its length, then its bytes */
                tmkit__field(o, &sp, NULL, s, tmkit_tx_strnlen(s, sp.prec < 0 ? SIZE_MAX : (size_t)sp.prec));
            break;
        }
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
            if (len == 4 || len == 8) { /* glibc takes %llf as %Lf */
                v.ld = va_arg(ap, long double);
                if (tmkit__glibc(o, &sp, conv, "L", TMKIT__LDOUBLE, v))
                    return -1;
            } else {
                v.d = va_arg(ap, double);
                if (tmkit__glibc(o, &sp, conv, "", TMKIT__DOUBLE, v))
                    return -1;
            }
            break;
        case '%': /* glibc prints it whatever the flags and width */
            tmkit__emit(o, "%", 1);
            break;
        default: /* %n, %m, %C, %S, unknown: let glibc have the whole thing, irrevocably */
            return -2;
        }
    }
}

TMKIT_WRAPPER int tmkit_tx_vsnprintf(char *, size_t, const char *, va_list) TMKIT_WRAP(vsnprintf);
TMKIT_WRAPPER int tmkit_tx_vsnprintf(char *d, size_t n, const char *f, va_list ap)
{
    tmkit__out o;
    o.w.dst = d;
    o.w.n = 0;
    o.room = n;
    o.total = 0;
    va_list copy;
    va_copy(copy, ap);
    int r = tmkit__vformat(&o, f, copy);
    va_end(copy);
    if (r == -2) { /* not taken: the rest of the transaction runs irrevocably */
        _ITM_changeTransactionMode(0 /* modeSerialIrrevocable */);
        return vsnprintf(d, n, f, ap);
    }
    tmkit__flush(&o.w); /* after an error too: glibc leaves what it wrote, terminated */
    if (n)
        tmkit__write_block(o.w.dst, "", 1);
    if (r < 0)
        return r;
    return o.total > INT_MAX ? (tmkit__set_errno(EOVERFLOW), -1) : (int)o.total;
}

TMKIT_WRAPPER int tmkit_tx_snprintf(char *, size_t, const char *, ...) TMKIT_WRAP(snprintf);
TMKIT_WRAPPER int tmkit_tx_snprintf(char *d, size_t n, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int r = tmkit_tx_vsnprintf(d, n, f, ap);
    va_end(ap);
    return r;
}

#endif
