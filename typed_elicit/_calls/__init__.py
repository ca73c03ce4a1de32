"""Running a call: from `@elicits` and `ctx.elicit(...)` to the typed result.

- `elicits`: the decorator; runs the function, ends the call, words what escapes it.
- `context`: `ElicitContext`, the facade a tool receives; `arguments` checks what it is given,
  `build` makes the question (`questions`: form, URL, page) and its settings (`policy`).
- `askers`: the strategy chosen once per call (`push` by requests, `replay` by 2026-07-28
  rounds, through the model, or none); `reach` decides whether the client can be asked,
  `refusal` what happens when it cannot, `answer` takes every answer (size, hooks, outcome,
  re-ask), `settle` joins a result to its question.
- `call`: the call's record (rounds, answers, pages, `once`), and the one place that builds
  its sealed state (`state`); `signals` end a round or a call early; `plugs` is where pages
  and the fallback plug in without this package importing them; `url_required` is -32042.
"""
