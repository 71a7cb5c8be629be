/* tmkit/libc_fmt.h — the number and formatting parts of the transaction-safe libc (included
 * by tmkit/libc.h, which explains the scheme; sorting and ctype: tmkit/libc_sort.h). */
#ifndef TMKIT_LIBC_FMT_H
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
        type v = fn(buf, &e, base);                                                         \
        if (end)                                                                            \
            *end = (char *)s + (e - buf);                                                   \
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

/* ---- snprintf: each conversion is formatted by glibc into a local buffer, its %s argument
 * first copied out of the transaction; the output goes into the transaction ---- */

typedef struct {
    tmkit__wr w;
    size_t room;  /* bytes snprintf may still store, the NUL included */
    size_t total; /* bytes the whole output would have */
} tmkit__out;

TMKIT_PURE void tmkit__emit(tmkit__out *o, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++, o->total++)
        if (o->room > 1) {
            tmkit__put(&o->w, p[i]);
            o->room--;
        }
}

/* Formats one conversion spec[] with its argument into o; a string argument str was copied. */
#define TMKIT__ONE(o, spec, ...)                                                            \
    do {                                                                                    \
        char tmkit__b[512];                                                                 \
        int tmkit__k = snprintf(tmkit__b, sizeof tmkit__b, spec, __VA_ARGS__);              \
        if (tmkit__k >= (int)sizeof tmkit__b) { /* long: format it again on the heap */     \
            char *tmkit__h = (char *)malloc((size_t)tmkit__k + 1);                          \
            if (!tmkit__h)                                                                  \
                return -1;                                                                  \
            snprintf(tmkit__h, (size_t)tmkit__k + 1, spec, __VA_ARGS__);                    \
            tmkit__emit(o, tmkit__h, (size_t)tmkit__k);                                     \
            free(tmkit__h);                                                                 \
        } else if (tmkit__k > 0) {                                                          \
            tmkit__emit(o, tmkit__b, (size_t)tmkit__k);                                     \
        }                                                                                   \
    } while (0)

/* The formatter; -2: a conversion it does not take (%n, positional arguments). */
TMKIT_PURE int tmkit__vformat(tmkit__out *o, const char *f, va_list ap)
{
    while (*f) {
        if (*f != '%') {
            const char *q = f;
            while (*q && *q != '%')
                q++;
            tmkit__emit(o, f, (size_t)(q - f));
            f = q;
            continue;
        }
        /* spec: % flags width .precision length conversion, with * taken from the arguments */
        char spec[32];
        size_t k = 0;
        int width = 0, prec = -1, has_w = 0, has_p = 0;
        spec[k++] = *f++;
        while (*f && strchr("-+ #0'", *f) && k < 8)
            spec[k++] = *f++;
        if (*f == '*') {
            width = va_arg(ap, int);
            has_w = 1;
            spec[k++] = '*';
            f++;
        } else {
            while (*f >= '0' && *f <= '9' && k < 16)
                spec[k++] = *f++;
        }
        if (*f == '$')
            return -2;
        if (*f == '.') {
            spec[k++] = *f++;
            if (*f == '*') {
                prec = va_arg(ap, int);
                has_p = 1;
                spec[k++] = '*';
                f++;
            } else {
                prec = 0;
                while (*f >= '0' && *f <= '9' && k < 24)
                    prec = prec * 10 + (*f - '0'), spec[k++] = *f++;
            }
        }
        int len = 0; /* 0 int, 1 hh, 2 h, 3 l, 4 ll, 5 z, 6 j, 7 t, 8 L */
        if (*f == 'h' && f[1] == 'h') len = 1, spec[k++] = *f++, spec[k++] = *f++;
        else if (*f == 'h') len = 2, spec[k++] = *f++;
        else if (*f == 'l' && f[1] == 'l') len = 4, spec[k++] = *f++, spec[k++] = *f++;
        else if (*f == 'l') len = 3, spec[k++] = *f++;
        else if (*f == 'z') len = 5, spec[k++] = *f++;
        else if (*f == 'j') len = 6, spec[k++] = *f++;
        else if (*f == 't') len = 7, spec[k++] = *f++;
        else if (*f == 'L' || *f == 'q') len = 8, spec[k++] = *f++;
        char conv = *f ? *f++ : 0;
        spec[k++] = conv;
        spec[k] = 0;
        /* The argument's value, then formatted with the same spec (with its * resolved by
         * passing the taken values back in the same order). */
#define TMKIT__FMT(x)                                                                       \
        do {                                                                                \
            if (has_w && has_p) TMKIT__ONE(o, spec, width, prec, x);                        \
            else if (has_w) TMKIT__ONE(o, spec, width, x);                                  \
            else if (has_p) TMKIT__ONE(o, spec, prec, x);                                   \
            else TMKIT__ONE(o, spec, x);                                                    \
        } while (0)
        switch (conv) {
        case 'd': case 'i':
            if (len == 3) TMKIT__FMT(va_arg(ap, long));
            else if (len == 4) TMKIT__FMT(va_arg(ap, long long));
            else if (len == 5) TMKIT__FMT(va_arg(ap, ssize_t));
            else if (len == 6) TMKIT__FMT(va_arg(ap, intmax_t));
            else if (len == 7) TMKIT__FMT(va_arg(ap, ptrdiff_t));
            else TMKIT__FMT(va_arg(ap, int)); /* hh and h were promoted to int */
            break;
        case 'u': case 'o': case 'x': case 'X':
            if (len == 3) TMKIT__FMT(va_arg(ap, unsigned long));
            else if (len == 4) TMKIT__FMT(va_arg(ap, unsigned long long));
            else if (len == 5) TMKIT__FMT(va_arg(ap, size_t));
            else if (len == 6) TMKIT__FMT(va_arg(ap, uintmax_t));
            else if (len == 7) TMKIT__FMT(va_arg(ap, ptrdiff_t));
            else TMKIT__FMT(va_arg(ap, unsigned int));
            break;
        case 'c':
            TMKIT__FMT(va_arg(ap, int));
            break;
        case 'p':
            TMKIT__FMT(va_arg(ap, void *));
            break;
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
            if (len == 8) TMKIT__FMT(va_arg(ap, long double));
            else TMKIT__FMT(va_arg(ap, double));
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (len == 3)
                return -2; /* %ls: wide strings are not taken */
            if (!s) {
                TMKIT__FMT((const char *)NULL); /* glibc prints (null) */
                break;
            }
            /* the string's bytes that can be printed: up to the precision, or the NUL */
            size_t n = tmkit_tx_strnlen(s, prec >= 0 ? (size_t)prec : SIZE_MAX);
            char small[256], *copy = n < sizeof small ? small : (char *)malloc(n + 1);
            if (!copy)
                return -1;
            tmkit__read_block(copy, s, n);
            copy[n] = 0;
            TMKIT__FMT(copy);
            if (copy != small)
                free(copy);
            break;
        }
        case '%':
            tmkit__emit(o, "%", 1);
            break;
        default: /* %n, %m, unknown: let glibc have the whole thing, irrevocably */
            return -2;
        }
#undef TMKIT__FMT
    }
    return 0;
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
    if (r < 0)
        return r;
    tmkit__flush(&o.w);
    if (n)
        tmkit__write_block(o.w.dst, "", 1);
    return o.total > INT32_MAX ? (errno = EOVERFLOW, -1) : (int)o.total;
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
