"""The ground floor: what every layer uses and that uses nothing of typed_elicit.

Protocol revisions and their predicates (`versions`), the result types (`results`), text
that is safe to show (`text`), the clock tests control (`clock`), digests (`digests`), the
base of the suspension signals (`suspension`) and moved names' warnings (`deprecation`).
"""
