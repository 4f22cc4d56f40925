"""Symbolic shapes: integer expressions over named dimensions (:mod:`.symbolic`) and the
facts a shape deduction relies on but cannot prove (:mod:`.obligations`)."""
