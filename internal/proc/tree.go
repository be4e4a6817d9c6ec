package proc

// TreePIDs returns root and all its descendants, found by following the
// parent links of every process. It returns nil when root is gone. A
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
		if st.PGID == pgid {
			pids = append(pids, st.PID)
		}
	}
	return pids
}

// TreeRSSBytes returns the resident memory of root and its descendants,
// summed (pages shared between processes count once per process), read
// once. It is 0 when root is gone.
func TreeRSSBytes(root int) int64 {
	var r statReader
	all, _ := scanAll(&r, nil, nil)
	var rss int64
	for _, pid := range descendants(all, root, nil) {
		for _, st := range all {
			if st.PID == pid {
				rss += st.RSSBytes
			}
		}
	}
	return rss
}
