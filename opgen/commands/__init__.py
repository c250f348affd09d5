"""What each command does (opgen new, build/test, update, bench, doctor) and what it prints."""
