/**
 * Deterministic synthetic memory items for the scale benchmark: short diary- and chat-like notes, about a
 * third Chinese, a third English and a third mixed, with words drawn from a Zipf distribution (a few
 * words are everywhere, most are rare, as in real text). The same seed always gives the same corpus.
 */

/** mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EN = `meeting doctor appointment birthday party dinner lunch coffee tea garden flowers painting pottery
guitar concert movie book library school homework exam project deadline report budget invoice bank
train flight hotel beach mountain hiking camping river lake park dog cat vet walk run gym yoga swim
bike car repair insurance rent apartment kitchen recipe pasta soup bread cake market groceries milk
eggs apple orange phone laptop password backup photo camera album wedding anniversary gift card
letter email call message friend family mother father sister brother grandma kids baby teacher
colleague manager team office remote salary promotion interview resume holiday vacation ticket museum
gallery festival parade snow rain storm weather summer winter spring autumn morning evening weekend
monday tuesday friday saturday sunday january march june october december medicine allergy headache
dentist therapy support group volunteer charity church community neighbour plumber electrician`.split(/\s+/);

const ZH = `会议 医生 预约 生日 聚会 晚饭 午饭 咖啡 花园 鲜花 画画 陶艺 吉他 音乐会 电影 图书馆 学校 作业
考试 项目 截止 报告 预算 发票 银行 火车 航班 酒店 海边 爬山 露营 河边 湖边 公园 小狗 小猫 兽医 散步
跑步 健身 游泳 自行车 汽车 修理 保险 房租 公寓 厨房 菜谱 面条 米饭 饺子 蛋糕 超市 牛奶 鸡蛋 苹果
手机 电脑 密码 备份 照片 相机 婚礼 纪念日 礼物 信件 邮件 电话 朋友 家人 妈妈 爸爸 姐姐 哥哥 奶奶
孩子 老师 同事 经理 团队 办公室 工资 升职 面试 简历 假期 旅行 门票 博物馆 展览 节日 下雪 下雨
天气 夏天 冬天 春天 秋天 早上 晚上 周末 周一 周五 北京 上海 杭州 成都 感冒 头疼 牙医 志愿者`.split(/\s+/);

// Personal notes are full of names: they give the corpus its long tail of rare words.
const SYLLABLES = "ka ren mi lo sa to na vi el an jo ha ru be ta li mo de si ko".split(" ");
const SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高".split("");
const MONTHS = "January February March April May June July August September October November December".split(" ");
const GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂".split("");

const EN_FRAMES = [
  "Remember the {w} with {n} on {w}",
  "We talked about the {w} and the {w} after {w}",
  "Need to buy {w} and {w} before the {w} at {d}",
  "{w} was great, next time bring the {w} for {n}",
  "Booked the {w} for the {w} trip with {n}",
];
const ZH_FRAMES = ["记得{w}之前准备{w}", "今天和{n}一起去{w}，顺便买了{w}", "{d}要处理{w}的事情", "{w}的时候想起了{n}"];
const MIXED_FRAMES = ["周末去 {e} 之前记得带{z}", "{z}的 {e} 已经改到{d}了", "Call {m} about the {z} 和 {e}"];

/** A Zipf-distributed index into a list of `n` words (exponent ≈ 1). */
function zipf(rand: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(rand() * Math.log(n + 1)) - 1));
}

export function* corpus(count: number, seed: number): Generator<{ id: string; text: string }> {
  const rand = prng(seed);
  const en = () => EN[zipf(rand, EN.length)];
  const zh = () => ZH[zipf(rand, ZH.length)];
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
  const enName = () => {
    const name = pick(SYLLABLES) + pick(SYLLABLES) + (rand() < 0.5 ? pick(SYLLABLES) : "");
    return name[0].toUpperCase() + name.slice(1);
  };
  const zhName = () => pick(SURNAMES) + pick(GIVEN) + (rand() < 0.5 ? pick(GIVEN) : "");
  const enDate = () => `${1 + Math.floor(rand() * 28)} ${pick(MONTHS)} ${2020 + Math.floor(rand() * 6)}`;
  const zhDate = () => `${1 + Math.floor(rand() * 12)}月${1 + Math.floor(rand() * 28)}号`;
  for (let i = 0; i < count; i++) {
    const style = rand();
    const sentences: string[] = [];
    const n = 1 + Math.floor(rand() * 3);
    for (let s = 0; s < n; s++) {
      if (style < 0.33) sentences.push(fill(pick(EN_FRAMES), { w: en, n: enName, d: enDate }));
      else if (style < 0.66) sentences.push(fill(pick(ZH_FRAMES), { w: zh, n: zhName, d: zhDate }));
      else sentences.push(fill(pick(MIXED_FRAMES), { e: en, z: zh, m: enName, d: zhDate }));
    }
    yield { id: `item-${i}`, text: sentences.join(style < 0.33 ? ". " : "。") };
  }
}

function fill(frame: string, slots: Record<string, () => string>): string {
  return frame.replace(/\{(\w)\}/g, (_, slot: string) => slots[slot]());
}

/** Queries of the kind a user asks: two or three words, in either language or both. */
export function queries(count: number, seed: number): string[] {
  const rand = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = rand();
    const en = () => EN[zipf(rand, EN.length)];
    const zh = () => ZH[zipf(rand, ZH.length)];
    if (r < 0.4) out.push(`when was the ${en()} with ${en()}?`);
    else if (r < 0.8) out.push(`${zh()}和${zh()}是什么时候`);
    else out.push(`${en()} ${zh()}`);
  }
  return out;
}
