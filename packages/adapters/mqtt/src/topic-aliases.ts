/**
 * Most topic aliases the adapter gives the commands of one connection, whatever larger Topic Alias Maximum the device
 * allows: commands to a device go to a few topics (mostly its default downlink topic), and each alias is an entry kept
 * for the connection's life.
 */
export const OUTBOUND_TOPIC_ALIASES = 16;

/** The Topic Alias a command's PUBLISH carries (MQTT 5.0 §3.3.2.3.4), and whether its topic name goes with it. */
export interface AliasedTopic {
  readonly alias: number;
  /** False: the topic name is sent empty, the device knowing the alias's topic already. */
  readonly named: boolean;
}

/**
 * The topic aliases of commands to one MQTT 5.0 connection (MQTT 5.0 §3.3.2.3.4): the first command on a topic carries
 * its full name and assigns the next free alias, 1..min(the device's Topic Alias Maximum, OUTBOUND_TOPIC_ALIASES);
 * once that PUBLISH was written, later commands on the topic carry an empty topic name and the alias. Until then they
 * carry the full name with the same alias again (allowed: it sets the same mapping), so no empty-named PUBLISH can
 * reach the device before the one that told it the alias. Once the aliases are spent, other topics go by their full
 * name without alias: an alias is never reassigned, since taking one over costs the full name again on both topics
 * while commands alternate between them, and a fixed table stays right whatever order packets are written in.
 * Aliases belong to the connection (MQTT-3.3.2-7): a new connection starts with an empty table.
 */
export class OutboundTopicAliases {
  private readonly byTopic = new Map<string, { readonly alias: number; written: boolean }>();
  private readonly max: number;

  /** `deviceMaximum`: the Topic Alias Maximum of the device's CONNECT (0: it accepts none). */
  constructor(deviceMaximum: number) {
    this.max = Math.min(deviceMaximum, OUTBOUND_TOPIC_ALIASES);
  }

  /** The alias of the next command on `topic` (any one name per topic); undefined when it goes without alias. */
  use(topic: string): AliasedTopic | undefined {
    const known = this.byTopic.get(topic);
    if (known) return { alias: known.alias, named: !known.written };
    if (this.byTopic.size >= this.max) return undefined;
    const alias = this.byTopic.size + 1;
    this.byTopic.set(topic, { alias, written: false });
    return { alias, named: true };
  }

  /** A PUBLISH on `topic` with its full name was written to the connection: the device knows its alias now. */
  written(topic: string): void {
    const known = this.byTopic.get(topic);
    if (known) known.written = true;
  }
}
