import GaragedKit

// garaged's code is in GaragedKit (Sources/garaged), where the tests can reach it; this is
// only the process's entry: the command line, parsed and run (`garaged`, `garaged doctor`, ...).
GaragedEntry.main()
