"""Policy: rule files, their validation and compilation."""
