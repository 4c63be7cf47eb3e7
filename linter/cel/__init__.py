"""CEL, the expression language of rule files: the backend that compiles and evaluates
expressions (``backend``), gpulint's own parser with spans for checking them (``lexer``,
``syntax``), the document paths an expression reads (``reads``, ``value_paths``, ``names``), the
rewrite that makes each evaluation read only small values (``flatten``), and the bounds on the
work an expression may do (``work``, ``work_bounds``, ``work_limits``: Kubernetes calls this an
expression's cost; gpulint keeps "cost" for money)."""
