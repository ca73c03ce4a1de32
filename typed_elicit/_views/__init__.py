"""Views of a form: the field markup and the plain words that pages and app views share.

- `fields`: `field_views` (what a template shows of each field) and the `field` macro of
  `templates/fields.html`.
- `words`: `PAGE_WORDS`, what a view says about an invalid answer, and `model_problems`, the
  model's errors in those words (never the user's value).

It sits beside `_calls`, above `_forms`: the optional parts that show forms (pages, apps) use it.
"""
