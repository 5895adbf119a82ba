//! Reading sacct afterwards: what each task really used (PLACEHOLDER).
