//! Partition lists from sinfo and scontrol (PLACEHOLDER).
