/**
 * A flow version drawn as a graph (@xyflow/react), laid out by dagre: states as nodes, transitions as edges
 * labelled with what moves them (an action, an event, a timer). `current` is highlighted. Loaded only on the
 * pages that draw one.
 */
import dagre from '@dagrejs/dagre';
import { Background, Controls, Position, ReactFlow, type Edge, type Node } from '@xyflow/react';
import { useMemo } from 'react';

export interface FlowDefinition {
  initial: string;
  states: Record<string, { label?: string; coreStatus?: string; final?: boolean }>;
  transitions: { from: string; to: string; on: { action?: string; event?: string; timer?: { after: string } } }[];
  actions?: Record<string, { label?: string }>;
}

const NODE = { width: 150, height: 48 };

function trigger(on: FlowDefinition['transitions'][number]['on'], definition: FlowDefinition) {
  if (on.action) return definition.actions?.[on.action]?.label ?? on.action;
  if (on.event) return `이벤트 ${on.event}`;
  if (on.timer) return `타이머 ${on.timer.after}`;
  return '';
}

export default function FlowGraph({ definition, current, label }: { definition: FlowDefinition; current?: string; label: string }) {
  const { nodes, edges } = useMemo(() => {
    const g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: 'LR', nodesep: 30, ranksep: 70 });
    g.setDefaultEdgeLabel(() => ({}));
    // dagre writes each node's position into the label object it was given: one object per node.
    for (const key of Object.keys(definition.states)) g.setNode(key, { ...NODE });
    for (const t of definition.transitions) g.setEdge(t.from, t.to);
    dagre.layout(g);
    const nodes: Node[] = Object.entries(definition.states).map(([key, state]) => {
      const at = g.node(key);
      return {
        id: key,
        position: { x: at.x - NODE.width / 2, y: at.y - NODE.height / 2 },
        data: { label: state.label ?? key },
        className: `flow-node${key === current ? ' flow-node-current' : ''}${state.final ? ' flow-node-final' : ''}`,
        draggable: false,
        connectable: false,
        sourcePosition: Position.Right,
        targetPosition: Position.Left,
        style: { width: NODE.width },
      };
    });
    const edges: Edge[] = definition.transitions.map((t, i) => ({
      id: `e${i}`,
      source: t.from,
      target: t.to,
      label: trigger(t.on, definition),
      animated: t.from === current,
    }));
    return { nodes, edges };
  }, [definition, current]);
  return (
    <figure className="flow-graph" aria-label={label}>
      <ReactFlow nodes={nodes} edges={edges} fitView nodesConnectable={false} elementsSelectable={false} proOptions={{ hideAttribution: true }}>
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
      <figcaption className="visually-hidden">
        {label}:{' '}
        {Object.values(definition.states)
          .map((s) => s.label)
          .join(', ')}
      </figcaption>
    </figure>
  );
}
