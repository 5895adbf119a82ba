//! Running the real command and recording every unit as it finishes (PLACEHOLDER).
