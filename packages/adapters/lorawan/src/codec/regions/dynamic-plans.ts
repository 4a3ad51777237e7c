// The dynamic channel plans of RP002-1.0.x (EU868 §2.2, AS923 §2.8, KR920 §2.10, IN865 §2.11, RU864 §2.13): RX1
// answers on the uplink's frequency, new channels arrive in a type-0 CFList. Each plan is a table; the values are
// RP002-1.0.3's (data-rate tables, "Maximum payload size" tables with repeater-compatible M, "RX1 DR" tables and the
// default settings of each region's §x.x.7/§x.x.8).
import {
  FSK50,
  lora,
  minusOffsetTable,
  rx1FromTable,
  sameFrequencyIn,
  sizes,
  type DataRate,
  type Region,
  type RegionName,
} from "./region-types.js";
import { cfListOf } from "./cf-list.js";

const SF12_TO_SF7: DataRate[] = [12, 11, 10, 9, 8, 7].map((sf) => lora(sf, 125));
const ratesOf = (list: readonly (DataRate | undefined)[]): Record<number, DataRate> =>
  Object.fromEntries(list.flatMap((r, i) => (r ? [[i, r]] : [])));

/** What differs between the dynamic plans. */
interface DynamicPlan {
  name: RegionName;
  dataRates: readonly (DataRate | undefined)[];
  /** M by DR index (undefined: the DR carries no frame). */
  maxPayload: readonly (number | undefined)[];
  rx1DrTable: Record<number, readonly number[]>;
  maxRx1DrOffset: number;
  rx2: { frequency: number; dataRate: number };
  band: [number, number];
  defaultChannels: readonly number[];
  extraChannels: readonly number[];
  power: (hz: number) => number;
  dwellTime?: boolean;
}

function dynamicRegion(p: DynamicPlan): Region {
  const rates = ratesOf(p.dataRates);
  return {
    name: p.name,
    uplinkDataRates: rates,
    downlinkDataRates: rates,
    maxPayload: sizes(p.maxPayload),
    maxRx1DrOffset: p.maxRx1DrOffset,
    rx1DrTable: p.rx1DrTable,
    rx2: p.rx2,
    receiveDelay1: 1,
    joinAcceptDelay1: 5,
    joinAcceptDelay2: 6,
    defaultChannels: p.defaultChannels,
    cfListType: 0,
    ...(p.extraChannels.length > 0 ? { defaultCfList: cfListOf(p.extraChannels) } : {}),
    gatewayChannels: [...p.defaultChannels, ...p.extraChannels],
    band: p.band,
    dwellTime: p.dwellTime ?? false,
    codingRate: "4/5",
    rx1DataRate: rx1FromTable,
    rx1Frequency: sameFrequencyIn(p.name, p.band[0], p.band[1]),
    downlinkPower: p.power,
  };
}

/** EU863-870: RX2 869.525 MHz DR0; 25 mW ERP, 500 mW (27 dBm) in 869.4–869.65 MHz where RX2 lies. */
export const EU868 = dynamicRegion({
  name: "EU868",
  dataRates: [...SF12_TO_SF7, lora(7, 250), FSK50],
  maxPayload: [59, 59, 59, 123, 230, 230, 230, 230],
  rx1DrTable: minusOffsetTable([0, 1, 2, 3, 4, 5, 6, 7]),
  maxRx1DrOffset: 5,
  rx2: { frequency: 869_525_000, dataRate: 0 },
  band: [863_000_000, 870_000_000],
  defaultChannels: [868_100_000, 868_300_000, 868_500_000],
  extraChannels: [867_100_000, 867_300_000, 867_500_000, 867_700_000, 867_900_000],
  power: (hz) => (hz >= 869_400_000 && hz <= 869_650_000 ? 27 : 14),
});

/** The RX1 DR table of AS923 without dwell time (RP002-1.0.3 Table "AS923 RX1 DR", offsets 6/7 = −1/−2). */
const AS923_RX1: Record<number, number[]> = {
  0: [0, 0, 0, 0, 0, 0, 1, 2],
  1: [1, 0, 0, 0, 0, 0, 2, 3],
  2: [2, 1, 0, 0, 0, 0, 3, 4],
  3: [3, 2, 1, 0, 0, 0, 4, 5],
  4: [4, 3, 2, 1, 0, 0, 5, 6],
  5: [5, 4, 3, 2, 1, 0, 6, 7],
  6: [6, 5, 4, 3, 2, 1, 7, 7],
  7: [7, 6, 5, 4, 3, 2, 7, 7],
};
/** The same with DownlinkDwellTime 1: never below DR2. */
const AS923_RX1_DWELL: Record<number, number[]> = Object.fromEntries(
  Object.entries(AS923_RX1).map(([dr, row]) => [dr, row.map((d) => Math.max(2, d))]),
);

/**
 * AS923-1..4 (RP002-1.0.3 §2.8): the AS923-1 plan shifted down by 0, 1.8, 6.6 and 5.9 MHz; RX2 923.2 MHz (shifted)
 * DR2; join channels 923.2 and 923.4 MHz (shifted); 16 dBm EIRP, 14 dBm sent.
 */
function as923(name: RegionName, offsetHz: number, band: [number, number], extra: number[], dwellTime: boolean) {
  return dynamicRegion({
    name,
    dataRates: [...SF12_TO_SF7, lora(7, 250), FSK50],
    // Dwell time 400 ms: DR0/DR1 carry no frame, DR2..4 are shorter (RP002-1.0.3 Table "AS923 maximum payload").
    maxPayload: dwellTime ? [undefined, undefined, 19, 61, 133, 230, 230, 230] : [59, 59, 59, 123, 230, 230, 230, 230],
    rx1DrTable: dwellTime ? AS923_RX1_DWELL : AS923_RX1,
    maxRx1DrOffset: 7,
    rx2: { frequency: 923_200_000 - offsetHz, dataRate: 2 },
    band,
    defaultChannels: [923_200_000 - offsetHz, 923_400_000 - offsetHz],
    extraChannels: extra,
    power: () => 14,
    dwellTime,
  });
}
const shifted = (offsetHz: number) =>
  [922_200_000, 922_400_000, 922_600_000, 922_800_000, 923_000_000].map((f) => f - offsetHz);
// AS923-4 (917–920 MHz): the extra channels above the join channels, as the AS923-1 ones would fall under the band.
const AS923_4_EXTRA = [917_700_000, 917_900_000, 918_100_000, 918_300_000, 918_500_000];
const AS923_PLANS: [RegionName, number, [number, number], number[]][] = [
  ["AS923-1", 0, [915_000_000, 928_000_000], shifted(0)],
  ["AS923-2", 1_800_000, [920_000_000, 923_000_000], shifted(1_800_000)],
  ["AS923-3", 6_600_000, [915_000_000, 921_000_000], shifted(6_600_000)],
  ["AS923-4", 5_900_000, [917_000_000, 920_000_000], AS923_4_EXTRA],
];

/** AS923-1..4 as networks run them by default (dwell time off, as ChirpStack's default), by name. */
export const AS923 = Object.fromEntries(AS923_PLANS.map(([n, o, b, e]) => [n, as923(n, o, b, e, false)])) as Record<
  "AS923-1" | "AS923-2" | "AS923-3" | "AS923-4",
  Region
>;
/** The same plans with the 400 ms dwell time (devices that start with UplinkDwellTime/DownlinkDwellTime 1). */
export const AS923_DWELL = Object.fromEntries(
  AS923_PLANS.map(([n, o, b, e]) => [n, as923(n, o, b, e, true)]),
) as Record<"AS923-1" | "AS923-2" | "AS923-3" | "AS923-4", Region>;

/** KR920-923 (§2.10): RX2 921.9 MHz DR0, join channels 922.1/922.3/922.5 MHz, 14 dBm. */
export const KR920 = dynamicRegion({
  name: "KR920",
  dataRates: SF12_TO_SF7,
  maxPayload: [59, 59, 59, 123, 230, 230],
  rx1DrTable: minusOffsetTable([0, 1, 2, 3, 4, 5]),
  maxRx1DrOffset: 5,
  rx2: { frequency: 921_900_000, dataRate: 0 },
  band: [920_900_000, 923_300_000],
  defaultChannels: [922_100_000, 922_300_000, 922_500_000],
  extraChannels: [922_700_000, 922_900_000, 923_100_000, 923_300_000],
  power: () => 14,
});

/** IN865-867 (§2.11): DR6 reserved, DR7 FSK; RX2 866.55 MHz DR2; offsets 6/7 raise the RX1 DR (max DR5). */
export const IN865 = dynamicRegion({
  name: "IN865",
  dataRates: [...SF12_TO_SF7, undefined, FSK50],
  maxPayload: [59, 59, 59, 123, 230, 230, undefined, 230],
  rx1DrTable: {
    0: [0, 0, 0, 0, 0, 0, 1, 2],
    1: [1, 0, 0, 0, 0, 0, 2, 3],
    2: [2, 1, 0, 0, 0, 0, 3, 4],
    3: [3, 2, 1, 0, 0, 0, 4, 5],
    4: [4, 3, 2, 1, 0, 0, 5, 5],
    5: [5, 4, 3, 2, 1, 0, 5, 5],
    7: [7, 6, 5, 4, 3, 2, 7, 7],
  },
  maxRx1DrOffset: 7,
  rx2: { frequency: 866_550_000, dataRate: 2 },
  band: [865_000_000, 867_000_000],
  defaultChannels: [865_062_500, 865_402_500, 865_985_000],
  extraChannels: [],
  power: () => 27,
});

/** RU864-870 (§2.13): EU868's data rates; RX2 869.1 MHz DR0, join channels 868.9/869.1 MHz. */
export const RU864 = dynamicRegion({
  name: "RU864",
  dataRates: [...SF12_TO_SF7, lora(7, 250), FSK50],
  maxPayload: [59, 59, 59, 123, 230, 230, 230, 230],
  rx1DrTable: minusOffsetTable([0, 1, 2, 3, 4, 5, 6, 7]),
  maxRx1DrOffset: 5,
  rx2: { frequency: 869_100_000, dataRate: 0 },
  band: [864_000_000, 870_000_000],
  defaultChannels: [868_900_000, 869_100_000],
  extraChannels: [864_100_000, 864_300_000, 864_500_000, 864_700_000, 864_900_000],
  power: () => 14,
});
