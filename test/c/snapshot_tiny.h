/* The hand-made heap snapshot of test_snapshot.c and test_snapshot_view.c,
 * in single quotes (helpers.h: dq). */
#ifndef CPROF_TEST_SNAPSHOT_TINY_H
#define CPROF_TEST_SNAPSHOT_TINY_H

/* Nine nodes (7 fields each), ten edges:
 *   0 root (synthetic): shortcut g -> 1 Global; element 1 -> 2 (GC roots)
 *   1 Global 10 B: a -> 3, b -> 4, weak w -> 7
 *   2 (GC roots) (synthetic): element 0 -> 8 Sys
 *   3 Node 100 B, 4 Node 200 B: both c -> 5 (a diamond: 5's dominator is 1)
 *   5 Leaf 1000 B: d -> 6;  6 Leaf 50 B
 *   7 Weakly 7 B: only a weak retainer, so the root dominates it
 *   8 Sys 30 B: e -> 6, an edge from outside the global's objects into
 *     them, which DevTools' rules ignore: 6's dominator stays 5. */
static const char *TINY =
    "{'snapshot':{'meta':{'node_fields':['type','name','id','self_size','edge_count','trace_node_"
    "id','detachedness'],'node_types':[['hidden','array','string','object','code','closure','"
    "regexp','number','native','synthetic','concatenated string','sliced string','symbol','bigint',"
    "'object shape'],'string','number','number','number','number','number'],'edge_fields':['type',"
    "'name_or_index','to_node'],'edge_types':[['context','element','property','internal','hidden',"
    "'shortcut','weak'],'string_or_number','node']},'node_count':9,'edge_count':10},'nodes':[9,0,1,"
    "0,2,0,0,3,2,3,10,3,0,0,9,3,5,0,1,0,0,3,7,7,100,1,0,0,3,7,9,200,1,0,0,3,9,11,1000,1,0,0,3,9,13,"
    "50,0,0,0,3,11,15,7,0,0,0,3,12,17,30,1,0,0],'edges':[5,1,7,1,1,14,2,4,21,2,5,28,6,6,49,1,0,56,"
    "2,"
    "8,35,2,8,35,2,10,42,2,13,42],'strings':['','g','Global','(GC roots)','a','b','w','Node','c','"
    "Leaf','d','Weakly','Sys','e']}";

#endif
