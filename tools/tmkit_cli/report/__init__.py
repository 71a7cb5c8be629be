"""tmkit report and tmkit stat: per-site transaction profiles, at exit and live."""
