"""Policy: rule files (``rule_file``), their loading and checking (``loader``, ``checking``,
``static_checks``), message templates (``template``, ``cel_placeholders``), which rules run at
which severity (``selection``), and their evaluation over manifests and facts (``evaluator``).
The rule reference in docs/rules is generated from the same files (``reference``, ``docs``)."""
