// One walk over a parsed tree that lists its visible nodes in pre-order, as a tree-sitter cursor
// would visit them, with what the query executor matches on (kind, field, named, depth, first
// child, next sibling). It reads tree-sitter's subtrees directly: the cursor rebuilds its child
// iterator from the parent at every sibling step and climbs through hidden nodes for every field
// id, which cost ~900 instructions per visible node; this walk keeps one frame per level.
//
// It mirrors `tree_cursor.c` of the tree-sitter version this crate is built with (0.27): which
// children are visible (their own flag, or an alias of their parent's production), hidden nodes
// flattened into their parent, positions (`length_add` of sizes and paddings), the alias a node
// carries, and `ts_tree_cursor_current_field_id` (the first non-inherited field-map entry, from the
// node up through its hidden ancestors; none for extras). `tests/flatten.rs` compares it with the
// cursor on every fixture of every language, and `.ci/run` compares the executor's matches with
// tree-sitter's on real code.

#include "tree_sitter/api.h"
#include "./language.h"
#include "./subtree.h"
#include "./tree.h"

// Mirrors `FlatNode` in flatten.rs (`#[repr(C)]`).
typedef struct {
  TSNode node;
  uint16_t kind;
  uint16_t field;
  uint8_t named;
  uint8_t error;
  uint32_t depth;
  uint32_t first_child;
  uint32_t next_sibling;
  uint32_t parent;
} SxFlatNode;

#define SX_NONE UINT32_MAX

typedef struct {
  Subtree parent;
  const TSSymbol *aliases;
  const TSFieldMapEntry *fields;
  const TSFieldMapEntry *fields_end;
  Length position;
  uint32_t child_index;
  uint32_t structural_index;
  // The visible node whose children this frame lists (a hidden frame lists them for it), and
  // the last of them listed so far.
  uint32_t owner;
  uint32_t last;
  // The field a hidden frame's nodes carry when their own parent gives them none.
  uint16_t outer_field;
  uint8_t hidden;
} Frame;

static inline Frame frame_of(const TSLanguage *language, Subtree parent, Length position, uint32_t owner,
                      uint16_t outer_field, uint8_t hidden) {
  Frame f;
  f.parent = parent;
  uint32_t production = parent.ptr->production_id;
  f.aliases = ts_language_alias_sequence(language, production);
  ts_language_field_map(language, production, &f.fields, &f.fields_end);
  f.position = position;
  f.child_index = 0;
  f.structural_index = 0;
  f.owner = owner;
  f.last = SX_NONE;
  f.outer_field = outer_field;
  f.hidden = hidden;
  return f;
}

// Lists the visible nodes of `tree` into `out` (room for `capacity`), leaving out the anonymous
// leaves whose kind is not marked in `keep` (`keep_len` entries). `frames` is scratch space that
// grows as needed (`*frames_cap` entries, `realloc`ed). Returns how many nodes the tree has to
// list; when that is more than `capacity`, `out` holds the first `capacity` and the caller calls
// again with more room. Returns `UINT32_MAX` when the scratch space cannot grow.
uint32_t sextant_flatten(const TSTree *tree, const uint8_t *keep, uint32_t keep_len,
                         SxFlatNode *out, uint32_t capacity, void **frames,
                         uint32_t *frames_cap) {
  const TSLanguage *language = tree->language;
  uint32_t count = 0;
  TSNode root = ts_tree_root_node(tree);
  {
    TSSymbol kind = ts_node_symbol(root);
    if (capacity > 0) {
      out[0] = (SxFlatNode){root, kind, 0, ts_node_is_named(root), kind == (TSSymbol)-1, 0,
                            SX_NONE, SX_NONE, SX_NONE};
    }
    count = 1;
  }
  if (ts_subtree_child_count(tree->root) == 0) return count;
  Frame *stack = (Frame *)*frames;
  uint32_t cap = *frames_cap;
  uint32_t size = 0;
  // Depth of the nodes the top frame lists: visible frames below it, the root's included.
  uint32_t depth = 1;
  if (cap < 16) {
    Frame *grown = (Frame *)realloc(stack, 64 * sizeof(Frame));
    if (!grown) return UINT32_MAX;
    stack = grown;
    cap = 64;
    *frames = stack;
    *frames_cap = cap;
  }
  stack[size++] = frame_of(language, tree->root, ts_subtree_padding(tree->root), 0, 0, 0);
  while (size > 0) {
    Frame *f = &stack[size - 1];
    uint32_t child_count = f->parent.ptr->child_count;
    if (f->child_index == child_count) {
      if (!f->hidden) depth--;
      // A hidden frame's last node is its owner's latest child: the enclosing frame goes on
      // from it.
      uint32_t last = f->last;
      size--;
      if (f->hidden && size > 0 && last != SX_NONE) stack[size - 1].last = last;
      continue;
    }
    const Subtree *children = ts_subtree_children(f->parent);
    const Subtree *child = &children[f->child_index];
    Length position = f->position;
    bool extra = ts_subtree_extra(*child);
    bool visible = ts_subtree_visible(*child);
    TSSymbol alias = 0;
    uint32_t structural_index = f->structural_index;
    if (!extra) {
      if (f->aliases) {
        alias = f->aliases[structural_index];
        visible |= alias != 0;
      }
      f->structural_index++;
    }
    f->position = length_add(f->position, ts_subtree_size(*child));
    f->child_index++;
    if (f->child_index < child_count) {
      f->position = length_add(f->position, ts_subtree_padding(children[f->child_index]));
    }
    uint16_t field = 0;
    if (!extra) {
      for (const TSFieldMapEntry *m = f->fields; m < f->fields_end; m++) {
        if (!m->inherited && m->child_index == structural_index) {
          field = m->field_id;
          break;
        }
      }
      if (field == 0) field = f->outer_field;
    }
    if (visible) {
      // `ts_node_new`, `ts_node_symbol` and `ts_node_is_named`, inlined: the calls pass the
      // node through memory and cost more than the work.
      TSNode node = {{position.bytes, position.extent.row, position.extent.column, alias}, child,
                     tree};
      TSSymbol symbol = alias ? alias : ts_subtree_symbol(*child);
      TSSymbol kind = symbol == ts_builtin_sym_error ? symbol : language->public_symbol_map[symbol];
      bool named = alias ? ts_language_symbol_metadata(language, alias).named
                         : ts_subtree_named(*child);
      uint32_t grandchildren = ts_subtree_child_count(*child);
      if (!named && grandchildren == 0 && !(kind < keep_len && keep[kind])) continue;
      // A node with children none of which is visible counts as a leaf too.
      if (!named && grandchildren > 0 && ts_subtree_visible_child_count(*child) == 0 &&
          !(kind < keep_len && keep[kind])) {
        continue;
      }
      uint32_t index = count++;
      if (index < capacity) {
        out[index] = (SxFlatNode){node, kind, field, named, kind == (TSSymbol)-1, depth,
                                  SX_NONE, SX_NONE, f->owner};
        if (f->last != SX_NONE) {
          out[f->last].next_sibling = index;
        } else {
          out[f->owner].first_child = index;
        }
      }
      f->last = index;
      if (grandchildren > 0) {
        if (size == cap) {
          Frame *grown = (Frame *)realloc(stack, 2 * cap * sizeof(Frame));
          if (!grown) return UINT32_MAX;
          stack = grown;
          cap *= 2;
          *frames = stack;
          *frames_cap = cap;
          f = &stack[size - 1];
        }
        stack[size++] = frame_of(language, *child, position, index, 0, 0);
        depth++;
      }
    } else if (ts_subtree_visible_child_count(*child) > 0) {
      if (size == cap) {
        Frame *grown = (Frame *)realloc(stack, 2 * cap * sizeof(Frame));
        if (!grown) return UINT32_MAX;
        stack = grown;
        cap *= 2;
        *frames = stack;
        *frames_cap = cap;
        f = &stack[size - 1];
      }
      Frame hidden = frame_of(language, *child, position, f->owner, extra ? 0 : field, 1);
      hidden.last = f->last;
      stack[size++] = hidden;
    }
  }
  return count;
}

void sextant_flatten_free(void *frames) { free(frames); }
