"""Page-form rules: a page form reduced to a tree, shaped per call, and an answer checked against it.

Loaded only when a page form is first declared or asked (`@form(page=True)`, `ctx.elicit_page`):
a server that asks plain forms never imports it.

- `tree`: a model a web form can carry, reduced to a `PageTree` whose leaves are `FieldSpec`s;
- `shape`: a tree shaped by a call's options and defaults, and carried to other replicas;
- `check`: a page answer checked against its tree, before the model sees it;
- `files`: `UploadedFile` and `FileLimits`, what a file field holds and how it is bounded.
"""
