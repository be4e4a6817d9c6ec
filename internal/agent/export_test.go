package agent

// ResultsDirFiles is resultsDirFiles, for the external test that holds it
// against the journal's and the run's names.
var ResultsDirFiles = resultsDirFiles
