package proc

// TreePIDs returns root and all its descendants, found by following the
// parent links in /proc/*/stat. It returns nil when root is gone. A
// descendant whose parent exited was re-parented away from the tree and is
// no longer part of it (Stop still kills such processes when it saw them).
func TreePIDs(root int) []int {
	var r statReader
	all, _ := scanAll(&r, nil, nil)
	tree := descendants(all, root, nil)
	if len(tree) == 0 {
		return nil
	}
	return tree
}

// groupPIDs returns the processes whose process group is pgid.
func groupPIDs(all []procStat, pgid int) []int {
	var pids []int
	for _, st := range all {
		if st.pgrp == pgid {
			pids = append(pids, st.pid)
		}
	}
	return pids
}
