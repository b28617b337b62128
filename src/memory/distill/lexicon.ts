/**
 * Word lists the extraction rules lean on. "I am a X" and "我是X" say a job only when X is a job word, and a
 * name only when it looks like one: without these lists "I'm a big fan" would become a job and "我是单身" a
 * name. The lists are deliberately plain so a reader can see (and extend) exactly what counts.
 */

/** English job nouns (singular, lower case); "software engineer" counts by its last word. */
export const EN_JOBS = new Set(
  `accountant actor actress administrator analyst architect artist assistant astronaut attorney author baker
  banker barber barista bartender biologist bookkeeper builder butcher carpenter cashier ceo cfo chef chemist
  cleaner clerk coach consultant contractor cook counselor counsellor cto dancer dentist designer detective
  developer dietitian director doctor driver economist editor electrician engineer entrepreneur farmer
  firefighter fisherman freelancer gardener geologist graphic hairdresser historian illustrator instructor
  intern investor janitor journalist judge lawyer lecturer librarian lifeguard machinist manager marketer
  mathematician mechanic midwife miner model musician nanny nurse officer optician painter paralegal
  paramedic pharmacist photographer physician physicist physiotherapist pilot plumber poet policeman
  policewoman politician postman producer professor programmer psychiatrist psychologist realtor receptionist
  reporter researcher retiree sailor salesman saleswoman salesperson scientist secretary singer soldier
  statistician student supervisor surgeon tailor teacher technician therapist trader translator tutor
  veterinarian vet waiter waitress welder writer youtuber streamer`.split(/\s+/),
);

/** Chinese job words matched whole. */
export const ZH_JOBS = new Set(
  `护士 老板 司机 律师 会计 记者 农民 经理 主管 总监 教授 模特 导演 编辑 翻译 顾问 主播 博主 店主 个体户 自由职业者
  创业者 保安 保姆 军人 商人 工人 秘书 出纳 主持人 码农 警察 歌手 选手 水手 厨子 学生 医生 研究生 大学生 博士生
  中学生 高中生 小学生 研究员 公务员 老师 教师 董事长 总裁 厂长 校长 院长 CEO 产品经理 退休教师`.split(/\s+/),
);

/** Chinese job suffixes: 工程师, 程序员, 作家 … (with the exceptions below, which end the same way). */
export const ZH_JOB_SUFFIXES = ["师", "员", "家", "生"];

export const ZH_NOT_JOBS = new Set(
  `会员 成员 党员 团员 队员 人员 大家 老家 人家 自家 回家 在家 东家 玩家 国家 专家们 先生 陌生 卫生 发生 一生 人生 花生
  学生会 独生 双胞胎 新生儿`.split(/\s+/),
);

/** Common Chinese surnames: "我是张伟" is a name, "我是单身" is not. */
export const ZH_SURNAMES = new Set(
  `王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 马 朱 胡 郭 何 高 林 罗 郑 梁 谢 宋 唐 许 韩 冯 邓 曹 彭 曾 肖 田 董 袁 潘 于 蒋
  蔡 余 杜 叶 程 苏 魏 吕 丁 任 沈 姚 卢 姜 崔 钟 谭 陆 汪 范 金 石 廖 贾 夏 韦 付 方 白 邹 孟 熊 秦 邱 江 尹 薛 闫 段 雷
  侯 龙 史 陶 黎 贺 顾 毛 郝 龚 邵 万 钱 严 覃 武 戴 莫 孔 向 汤 欧阳 司马 上官 诸葛 小 阿 老`.split(/\s+/),
);

/** "我是小孩" starts like a nickname (小…) but is not one. */
export const ZH_NOT_NAMES = new Set(
  `小孩 小朋友 小白 小学生 老人 老大 老二 老三 老实人 阿姨 小心 老手 小事`.split(/\s+/),
);

/** First words of an object that points back into the conversation rather than at a thing: "I love it". */
export const EN_PRONOUN_OBJECTS = new Set(
  `it that this these those them him her you u ya y'all me myself yourself everything anything something
  nothing everyone everybody anyone someone somebody what how when where why which who whatever whoever`.split(/\s+/),
);

export const ZH_PRONOUNS = new Set(
  `你 您 他 她 它 你们 他们 她们 它们 大家 自己 这 那 这个 那个 这些 那些 这里 那里 这儿 那儿 什么 谁 哪 哪里 哪儿`.split(
    /\s+/,
  ),
);

/** Determiners that make "I live in a small flat" a description, not a place. */
export const EN_DETERMINERS = new Set(
  `a an my our his her their your this that these those some any no every each another it there here`.split(/\s+/),
);

/** Words a name never consists of: "my name is not important", "call me crazy". */
export const EN_NOT_NAME_WORDS = new Set(
  `not a an the so very too pretty kind sort really just hard difficult long weird funny strange crazy
  stupid silly lazy whatever anything something nothing maybe later back now here there when if`.split(/\s+/),
);

/** `Label: text` prefixes that are not a speaker. */
export const NOT_SPEAKERS = new Set(
  `note notes ps update edit re fyi todo warning question answer reminder important tip hint example summary
  error info title subject tldr step q a 注意 备注 提示 问题 回答 总结 更新 例如 比如 补充 说明`.split(/\s+/),
);

/** Speakers that mean "the user" rather than a named person. */
export const GENERIC_SPEAKERS = new Set(`user me i human 用户 我 本人`.split(/\s+/));
