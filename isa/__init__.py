"""Intel Gen ISA: encoding, text (IGA syntax) and a SIMD simulator."""
