"""How a candidate is judged. Runs inside the sandbox worker, one candidate per process."""
