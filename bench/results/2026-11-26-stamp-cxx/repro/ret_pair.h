struct P {
    bool first;
    long second;
    __attribute__((transaction_safe)) P(bool a, long b) : first(a), second(b) {}
};
__attribute__((transaction_safe)) P need(long x);
