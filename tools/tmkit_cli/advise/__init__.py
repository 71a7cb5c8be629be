"""tmkit advise: which critical sections of a lock-based C program can become transactions."""
