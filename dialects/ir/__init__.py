"""IR infrastructure shared by the dialects: located diagnostics and the parser that
attaches them, custom-syntax directives, whole-module verification helpers (dominance,
symbol index), fast building and verifying of our ops, and pausing the garbage
collector while IR is built."""
