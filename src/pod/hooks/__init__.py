"""What hook authors import: events, Hook/hook, the registry, errors; imports no other room."""
