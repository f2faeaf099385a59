"""Must be rejected by `mypy --strict` through the stub: proves the stub is the one being checked."""
import reshape1

rank: int = reshape1.infer((2, 3), [6], False).shape.rank
